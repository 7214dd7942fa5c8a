// Parser errors of the nisa custom syntax: DMA queues, wait lists, tile
// shapes and access patterns.
// RUN: neuron-opt %s -split-input-file -verify-diagnostics

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{expected a DMA queue q0..q15, got 'scalar'}}
    nisa.dma_copy scalar @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{expected a DMA queue q0..q15, got 'q16'}}
    nisa.dma_copy q16 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{unknown stream 'dma'}}
    nisa.tensor_copy vector @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] wait(dma >= 1)
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    // expected-error@+1 {{a tile shape is partitions x elements x type, e.g. 128x512xf32}}
    nisa.alloc @t sbuf 128xf32
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{partition range 32:32 is empty}}
    nisa.tensor_copy vector @a[32:32, 0, [1,64]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{access pattern has a negative partition range}}
    nisa.tensor_copy vector @a[-32:0, 0, [1,64]] = @a[0:32, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{access pattern has a negative offset -1}}
    nisa.tensor_copy vector @a[0:128, -1, [1,64]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{access pattern dim of size 0 (sizes must be >= 1)}}
    nisa.tensor_copy vector @a[0:128, 0, [1,0]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{access pattern stride -1 is negative}}
    nisa.tensor_copy vector @a[0:128, 63, [-1,64]] = @a[0:128, 0, [1,64]]
  }
}
