// nlgmetrics._native: the compiled kernels of nlgmetrics. Each kernel here is the only implementation of its
// logic; the Python modules that use them say which.
#include <pybind11/pybind11.h>

#include "rouge_kernel.hpp"

namespace nlgm {
void bind_ngrams(pybind11::module_& m);
void bind_sari(pybind11::module_& m);
}

PYBIND11_MODULE(_native, m) {
    m.doc() = "Compiled kernels of nlgmetrics (ROUGE tokenizing, stemming and scoring; n-gram counts of small BLEU and chrF batches; SARI per segment).";
    nlgm::bind_rouge(m);
    nlgm::bind_ngrams(m);
    nlgm::bind_sari(m);
}
