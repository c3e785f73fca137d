"""`refuse_writes_to_read_only_memory`: a program that writes into the buffer of a tensor or
into a constant global is refused where it writes. Both are undefined in MLIR, and both gave a
wrong number with no error (a store into an argument's buffer read back the old value)."""
import numpy as np
import pytest

import gradir

STORE_INTO_ARGUMENT = """\
func.func @f(%a: tensor<4xf64>, %x: f64) -> f64 {
  %m = bufferization.to_buffer %a : tensor<4xf64> to memref<4xf64>
  %c0 = arith.constant 0 : index
  memref.store %x, %m[%c0] : memref<4xf64>
  %v = memref.load %m[%c0] : memref<4xf64>
  return %v : f64
}
"""

THROUGH_A_VIEW_AND_A_CALL = """\
func.func private @fill(%m: memref<2xf64>, %x: f64) {
  %c1 = arith.constant 1 : index
  memref.store %x, %m[%c1] : memref<2xf64>
  return
}
func.func @f(%a: tensor<4xf64>, %x: f64) -> f64 {
  %m = bufferization.to_buffer %a : tensor<4xf64> to memref<4xf64>
  %s = memref.subview %m[2] [2] [1] : memref<4xf64> to memref<2xf64, strided<[1], offset: 2>>
  %c = "memref.cast"(%s) : (memref<2xf64, strided<[1], offset: 2>>) -> memref<2xf64, strided<[1], offset: ?>>
  %d = memref.alloc() : memref<2xf64>
  func.call @fill(%d, %x) : (memref<2xf64>, f64) -> ()
  linalg.fill ins(%x : f64) outs(%c : memref<2xf64, strided<[1], offset: ?>>)
  %c1 = arith.constant 1 : index
  %v = memref.load %d[%c1] : memref<2xf64>
  return %v : f64
}
"""

CONSTANT_GLOBAL = """\
"memref.global"() <{sym_name = "table", type = memref<4xf64>, initial_value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>, constant, sym_visibility = "private"}> : () -> ()
"memref.global"() <{sym_name = "scratch", type = memref<4xf64>, initial_value = dense<0.0> : tensor<4xf64>, sym_visibility = "private"}> : () -> ()
func.func @f(%x: f64) -> f64 {
  %m = memref.get_global @NAME : memref<4xf64>
  %c0 = arith.constant 0 : index
  memref.store %x, %m[%c0] : memref<4xf64>
  %v = memref.load %m[%c0] : memref<4xf64>
  return %v : f64
}
"""

LOOP_STATE = """\
func.func @f(%a: tensor<4xf64>, %x: f64) -> f64 {
  %m = bufferization.to_buffer %a : tensor<4xf64> to memref<4xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%b = %m) -> (memref<4xf64>) {
    memref.store %x, %b[%i] : memref<4xf64>
    scf.yield %b : memref<4xf64>
  }
  %v = memref.load %r[%c0] : memref<4xf64>
  return %v : f64
}
"""


def refused(text: str) -> gradir.SourceError:
    with pytest.raises(gradir.SourceError) as raised:
        gradir.compile(text)
    return raised.value


def test_a_store_into_an_arguments_buffer_is_refused_where_it_stores():
    error = refused(STORE_INTO_ARGUMENT)
    assert error.location == "<string>:4:3"
    assert error.message.startswith("'memref.store' writes into the buffer of a tensor (bufferization.to_buffer)")


def test_a_write_through_a_view_is_refused_and_a_private_buffer_passed_to_a_call_is_not():
    error = refused(THROUGH_A_VIEW_AND_A_CALL)
    assert error.location == "<string>:12:3" and error.message.startswith("'linalg.fill' writes into the buffer of a tensor")
    private = THROUGH_A_VIEW_AND_A_CALL.replace("  linalg.fill ins(%x : f64) outs(%c : memref<2xf64, strided<[1], offset: ?>>)\n", "")
    assert gradir.compile(private).call("f", np.arange(4.0), 2.5)[0] == 2.5  # what @fill wrote into %d


def test_a_write_through_a_call_into_a_tensors_buffer_is_refused_in_the_callee():
    text = THROUGH_A_VIEW_AND_A_CALL.replace("func.call @fill(%d, %x)", "func.call @fill(%s2, %x)").replace(
        "  %d = memref.alloc() : memref<2xf64>\n",
        "  %d = memref.alloc() : memref<2xf64>\n  %s2 = memref.subview %m[0] [2] [1] : memref<4xf64> to memref<2xf64>\n",
    ).replace("  linalg.fill ins(%x : f64) outs(%c : memref<2xf64, strided<[1], offset: ?>>)\n", "")
    error = refused(text)
    assert error.location == "<string>:3:3" and "writes into the buffer of a tensor" in error.message


def test_a_loop_state_holding_a_tensors_buffer_is_followed():
    assert refused(LOOP_STATE).location == "<string>:7:5"


def test_a_constant_global_is_read_only_and_another_global_is_not():
    error = refused(CONSTANT_GLOBAL.replace("NAME", "table"))
    assert error.location == "<string>:6:3"
    assert error.message.startswith("'memref.store' writes into the constant memref.global @table")
    assert gradir.compile(CONSTANT_GLOBAL.replace("NAME", "scratch")).call("f", 2.5) == (2.5,)
