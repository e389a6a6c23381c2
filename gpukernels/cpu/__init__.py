"""numba twins of the GPU kernels, one module per stage."""
