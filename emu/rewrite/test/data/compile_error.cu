// The error on line 7 must be reported at line 7 of this file after preprocessing and rewriting.
__shared__ int file_scope_value;

__global__ void broken(int* p) {
  __shared__ float a[4],
                   b[4];
  p[0] = undeclared_name;
}
