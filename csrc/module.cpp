// nlgmetrics._native: the compiled kernels of nlgmetrics. Each kernel here is the only implementation of its
// logic; the Python modules that use them say which.
#include <pybind11/pybind11.h>

#include "rouge_kernel.hpp"

PYBIND11_MODULE(_native, m) {
    m.doc() = "Compiled kernels of nlgmetrics (ROUGE tokenizing, stemming and scoring).";
    nlgm::bind_rouge(m);
}
