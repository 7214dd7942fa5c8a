// The race checker on the program neuronc wrote for `tosa.add` of two
// tensor<129x8193xf32> before the fix of the one-buffer prefetch (verbatim
// --emit=nisa output, comments dropped): the loads of row tile 1 land in @t0
// and @t1 before the add of row tile 0 reads them. Every access is ordered
// by the semaphores, so no race is reported, but the data row tile 0 loaded
// is overwritten before anything read it: a lost write.
// RUN: not neuron-opt %s --nisa-check-races -o /dev/null 2>&1 | FileCheck %s
// CHECK: :[[#@LINE+45]]:7: error: 'nisa.dma_copy' op overwrites data nothing has read yet: sbuf partitions 0:1 bytes 0..32772 overlaps sbuf partitions 0:8 bytes 0..32772, written by an earlier instruction on stream q0; the reader that data was for would see this write instead
// CHECK: :[[#@LINE+12]]:7: note: the earlier write
// CHECK: error: 'nisa.dma_copy' op overwrites data nothing has read yet: sbuf partitions 0:1 bytes 32832..65604 overlaps sbuf partitions 0:8 bytes 32832..65604, written by an earlier instruction on stream q0
// CHECK-NOT: races with
module {
  nisa.program @main target "trn1" {
    nisa.hbm @in0 input 0 : tensor<129x8193xf32>
    nisa.hbm @in1 input 1 : tensor<129x8193xf32>
    nisa.hbm @out0 output 0 : tensor<129x8193xf32>
    nisa.kernel @k0 "add" from "neuron.add" {
      nisa.alloc @t0 sbuf 128x8193xf32 offset = 0
      nisa.alloc @t1 sbuf 128x8193xf32 offset = 32832
      nisa.alloc @t2 sbuf 128x8193xf32 offset = 65664
      nisa.dma_copy q0 @t0[0:8, 0, [1,8193]] = @in0[0, [8193,8], [1,8193]]
      nisa.dma_copy q1 @t0[8:16, 0, [1,8193]] = @in0[65544, [8193,8], [1,8193]]
      nisa.dma_copy q2 @t0[16:24, 0, [1,8193]] = @in0[131088, [8193,8], [1,8193]]
      nisa.dma_copy q3 @t0[24:32, 0, [1,8193]] = @in0[196632, [8193,8], [1,8193]]
      nisa.dma_copy q4 @t0[32:40, 0, [1,8193]] = @in0[262176, [8193,8], [1,8193]]
      nisa.dma_copy q5 @t0[40:48, 0, [1,8193]] = @in0[327720, [8193,8], [1,8193]]
      nisa.dma_copy q6 @t0[48:56, 0, [1,8193]] = @in0[393264, [8193,8], [1,8193]]
      nisa.dma_copy q7 @t0[56:64, 0, [1,8193]] = @in0[458808, [8193,8], [1,8193]]
      nisa.dma_copy q8 @t0[64:72, 0, [1,8193]] = @in0[524352, [8193,8], [1,8193]]
      nisa.dma_copy q9 @t0[72:80, 0, [1,8193]] = @in0[589896, [8193,8], [1,8193]]
      nisa.dma_copy q10 @t0[80:88, 0, [1,8193]] = @in0[655440, [8193,8], [1,8193]]
      nisa.dma_copy q11 @t0[88:96, 0, [1,8193]] = @in0[720984, [8193,8], [1,8193]]
      nisa.dma_copy q12 @t0[96:104, 0, [1,8193]] = @in0[786528, [8193,8], [1,8193]]
      nisa.dma_copy q13 @t0[104:112, 0, [1,8193]] = @in0[852072, [8193,8], [1,8193]]
      nisa.dma_copy q14 @t0[112:120, 0, [1,8193]] = @in0[917616, [8193,8], [1,8193]]
      nisa.dma_copy q15 @t0[120:128, 0, [1,8193]] = @in0[983160, [8193,8], [1,8193]]
      nisa.dma_copy q0 @t1[0:8, 0, [1,8193]] = @in1[0, [8193,8], [1,8193]] signal
      nisa.dma_copy q1 @t1[8:16, 0, [1,8193]] = @in1[65544, [8193,8], [1,8193]]
      nisa.dma_copy q2 @t1[16:24, 0, [1,8193]] = @in1[131088, [8193,8], [1,8193]] signal
      nisa.dma_copy q3 @t1[24:32, 0, [1,8193]] = @in1[196632, [8193,8], [1,8193]] signal
      nisa.dma_copy q4 @t1[32:40, 0, [1,8193]] = @in1[262176, [8193,8], [1,8193]] signal
      nisa.dma_copy q5 @t1[40:48, 0, [1,8193]] = @in1[327720, [8193,8], [1,8193]] signal
      nisa.dma_copy q6 @t1[48:56, 0, [1,8193]] = @in1[393264, [8193,8], [1,8193]] signal
      nisa.dma_copy q7 @t1[56:64, 0, [1,8193]] = @in1[458808, [8193,8], [1,8193]] signal
      nisa.dma_copy q8 @t1[64:72, 0, [1,8193]] = @in1[524352, [8193,8], [1,8193]] signal
      nisa.dma_copy q9 @t1[72:80, 0, [1,8193]] = @in1[589896, [8193,8], [1,8193]] signal
      nisa.dma_copy q10 @t1[80:88, 0, [1,8193]] = @in1[655440, [8193,8], [1,8193]] signal
      nisa.dma_copy q11 @t1[88:96, 0, [1,8193]] = @in1[720984, [8193,8], [1,8193]] signal
      nisa.dma_copy q12 @t1[96:104, 0, [1,8193]] = @in1[786528, [8193,8], [1,8193]] signal
      nisa.dma_copy q13 @t1[104:112, 0, [1,8193]] = @in1[852072, [8193,8], [1,8193]] signal
      nisa.dma_copy q14 @t1[112:120, 0, [1,8193]] = @in1[917616, [8193,8], [1,8193]] signal
      nisa.dma_copy q15 @t1[120:128, 0, [1,8193]] = @in1[983160, [8193,8], [1,8193]] signal
      nisa.dma_copy q0 @t0[0:1, 0, [1,8193]] = @in0[1048704, [1,8193]] signal
      nisa.dma_copy q1 @t1[0:1, 0, [1,8193]] = @in1[1048704, [1,8193]] wait(q0 >= 1) signal
      nisa.tensor_tensor gpsimd add @t2[0:128, 0, [1,8193]] = @t0[0:128, 0, [1,8193]], @t1[0:128, 0, [1,8193]] wait(q0 >= 2, q1 >= 1, q2 >= 1, q3 >= 1, q4 >= 1, q5 >= 1, q6 >= 1, q7 >= 1, q8 >= 1, q9 >= 1, q10 >= 1, q11 >= 1, q12 >= 1, q13 >= 1, q14 >= 1, q15 >= 1) signal
      nisa.dma_copy q2 @out0[0, [8193,8], [1,8193]] = @t2[0:8, 0, [1,8193]] wait(gpsimd >= 1) signal
      nisa.dma_copy q3 @out0[65544, [8193,8], [1,8193]] = @t2[8:16, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q4 @out0[131088, [8193,8], [1,8193]] = @t2[16:24, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q5 @out0[196632, [8193,8], [1,8193]] = @t2[24:32, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q6 @out0[262176, [8193,8], [1,8193]] = @t2[32:40, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q7 @out0[327720, [8193,8], [1,8193]] = @t2[40:48, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q8 @out0[393264, [8193,8], [1,8193]] = @t2[48:56, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q9 @out0[458808, [8193,8], [1,8193]] = @t2[56:64, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q10 @out0[524352, [8193,8], [1,8193]] = @t2[64:72, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q11 @out0[589896, [8193,8], [1,8193]] = @t2[72:80, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q12 @out0[655440, [8193,8], [1,8193]] = @t2[80:88, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q13 @out0[720984, [8193,8], [1,8193]] = @t2[88:96, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q14 @out0[786528, [8193,8], [1,8193]] = @t2[96:104, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q15 @out0[852072, [8193,8], [1,8193]] = @t2[104:112, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q0 @out0[917616, [8193,8], [1,8193]] = @t2[112:120, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.dma_copy q1 @out0[983160, [8193,8], [1,8193]] = @t2[120:128, 0, [1,8193]] wait(gpsimd >= 1)
      nisa.tensor_tensor gpsimd add @t2[0:1, 0, [1,8193]] = @t0[0:1, 0, [1,8193]], @t1[0:1, 0, [1,8193]] wait(q2 >= 2) signal
      nisa.dma_copy q2 @out0[1048704, [1,8193]] = @t2[0:1, 0, [1,8193]] wait(gpsimd >= 2)
    }
  }
}
