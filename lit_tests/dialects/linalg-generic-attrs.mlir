// MLIR 22 reads an optional attribute dictionary right after linalg.generic's trait
// dictionary (`{indexing_maps = ...} {__internal_linalg_transform__ = "x"} ins(...)`, IREE's
// tests write it), and keeps the trait's own other keys: both become discardable attributes,
// printed back as `attrs = {...}` after outs, which reads back the same. The generic form
// carries them after the region.
// RUN: autodiff-opt %s --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

#map = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @attr_dict_after_trait
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%{{.*}} : tensor<2xf32>) outs(%{{.*}} : tensor<2xf32>) attrs = {__internal_linalg_transform__ = "tensor_fuse_err"} {
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%{{.*}} : tensor<2xf32>) outs(%{{.*}} : tensor<2xf32>) attrs = {kept = 3 : i64, a = 1 : i64, b = "two"} {
// GENERIC-LABEL: sym_name = "attr_dict_after_trait"
// GENERIC:         "linalg.generic"(%{{.*}}, %{{.*}}) <{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
// GENERIC:         }) {__internal_linalg_transform__ = "tensor_fuse_err"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC:         }) {kept = 3 : i64, a = 1 : i64, b = "two"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
func.func @attr_dict_after_trait(%x: tensor<2xf32>, %o: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      {__internal_linalg_transform__ = "tensor_fuse_err"}
      ins(%x : tensor<2xf32>) outs(%o : tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = math.sqrt %a : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  // The trait's other keys, the dictionary after it and `attrs = {...}` after outs together.
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"], kept = 3} {a = 1}
      ins(%0 : tensor<2xf32>) outs(%o : tensor<2xf32>) attrs = {b = "two"} {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// After a trait given by an alias, and with a generic nested in the body (its own
// dictionary read by itself, the outer one's kept).
#id = affine_map<(d0) -> (d0)>
#trait = {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
// CHECK-LABEL: func.func @attr_dict_after_alias
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%{{.*}} : tensor<3xf64>) outs(%{{.*}} : tensor<3xf64>) attrs = {outer} {
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%{{.*}} : tensor<3xf64>) outs(%{{.*}} : tensor<3xf64>) attrs = {inner = 2 : i64} {
func.func @attr_dict_after_alias(%x: tensor<3xf64>, %o: tensor<3xf64>) -> tensor<3xf64> {
  %0 = linalg.generic #trait {outer} ins(%x : tensor<3xf64>) outs(%o : tensor<3xf64>) {
  ^bb0(%a: f64, %b: f64):
    %t = tensor.empty() : tensor<3xf64>
    %n = linalg.generic #trait {inner = 2} ins(%t : tensor<3xf64>) outs(%t : tensor<3xf64>) {
    ^bb0(%c: f64, %d: f64):
      linalg.yield %c : f64
    } -> tensor<3xf64>
    linalg.yield %a : f64
  } -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
