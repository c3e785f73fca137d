// %m is defined after the loop whose body reads it.
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %y = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (tensor<3xf64>) {
    %a = autodiff.add %acc, %m : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %a : tensor<3xf64>
  }
  %m = autodiff.exp %x : tensor<3xf64>
  return %y : tensor<3xf64>
}
