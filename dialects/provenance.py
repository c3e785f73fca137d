"""The attributes the autodiff passes put on the functions they make.

Each says which function it was made from and how (`{of = @f, ...}`): the passes read it to
reuse a derivative already made, the MLIR bridge to know a derivative's result shapes, the
compile to tell the user's functions from the derived ones (compiled at their first call).
One home for the names, which the xDSL passes and the MLIR side both spell."""

DERIVATIVE_ATTRIBUTE = "autodiff.derivative"
"""On a derivative function (`f_vjp_0`, `f_grad_0`, `f_jvp_0`)."""

BATCHED_ATTRIBUTE = "autodiff.batched"
"""On a batched function (`f_vmap_x24`)."""

PROVENANCE_ATTRIBUTES = (BATCHED_ATTRIBUTE, DERIVATIVE_ATTRIBUTE)
