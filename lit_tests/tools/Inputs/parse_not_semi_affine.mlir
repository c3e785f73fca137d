func.func @f(%i: index, %j: index) -> index {
  %a = affine.apply affine_map<(d0, d1) -> (d0 ceildiv d1)>(%i, %j)
  return %a : index
}
