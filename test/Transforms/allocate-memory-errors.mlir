// Tiles that are live at the same time and do not fit are an error that
// names the kernel and the bytes; nothing is placed past the capacity.
// RUN: neuron-opt %s --nisa-allocate-memory -verify-diagnostics

nisa.program @full target "trn1" {
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @big0 sbuf 128x25600xf32
    // expected-error@+1 {{'nisa.alloc' op does not fit: SBUF needs 102400 more bytes per partition at instruction 1 while 1 live tiles use 102400 of 196608 on trn1 (kernel @k0, demo from test); split this kernel so fewer or smaller tiles are live at once}}
    nisa.alloc @big1 sbuf 128x25600xf32
    nisa.memset vector @big0[0:128, 0, [1,25600]] = 0.0
    nisa.memset vector @big1[0:128, 0, [1,25600]] = 0.0
    nisa.memset vector @big0[0:128, 0, [1,25600]] = 1.0
  }
}
