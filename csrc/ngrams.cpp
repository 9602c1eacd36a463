// Clipped n-gram counts of small batches (BLEU, chrF): per segment and order, the number of hypothesis n-grams
// that the references hold, each counted at most as often as a reference holds it.
//
// The corpus path (nlgmetrics.algorithms.ngrams) indexes the references of a whole corpus with numpy, which pays
// off from a few dozen segments on and lets the index be reused for every system; on one or a few segments its
// fixed cost is hundreds of numpy calls. This is the small-batch path: the same counts, segment by segment
// (ngram_clip.hpp). The test suite checks that both paths give the same statistics.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ngram_clip.hpp"
#include "string_ids.hpp"

namespace py = pybind11;

namespace nlgm {

namespace {

// The hash of a token's UTF-8 bytes.
struct TokenHash {
    uint64_t operator()(std::string_view s) const { return token_hash(s.data(), s.size()); }
};

// Token ids local to one segment (its hypothesis and references), over views into the tokens' UTF-8, which belongs
// to the strings of the lists.
using Interner = clip::DenseIds<std::string_view, TokenHash>;

// How many tokens a sequence holds that need ids: a list's length; none for a str (its code points are its ids).
std::size_t tokens_of(const py::handle& item) {
    return PyUnicode_Check(item.ptr()) ? 0 : static_cast<std::size_t>(py::len(item));
}

// A sequence of tokens: a list of str (words) or a str (its code points).
void read_sequence(const py::handle& item, Interner& interner, std::vector<uint32_t>& out) {
    out.clear();
    PyObject* obj = item.ptr();
    if (PyUnicode_Check(obj)) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(obj);
        int kind = PyUnicode_KIND(obj);
        const void* data = PyUnicode_DATA(obj);
        for (Py_ssize_t i = 0; i < n; ++i) out.push_back(PyUnicode_READ(kind, data, i));
        return;
    }
    for (const py::handle& token : item) {
        Py_ssize_t size;
        const char* data = PyUnicode_AsUTF8AndSize(token.ptr(), &size);
        if (!data) throw py::error_already_set();
        out.push_back(interner.id(std::string_view(data, static_cast<std::size_t>(size))));
    }
}

}  // namespace

// For each segment (hypothesis, its references): per order 1..orders, the clipped matches. With `per_reference`,
// matches against each reference apart (chrF), else against the largest count over the references (BLEU's
// clipping). Returns, per segment, a list over its references (one entry without per_reference) of lists over
// the orders.
py::list clipped_matches(const py::list& hyps, const py::list& refs, const std::vector<int64_t>& starts, int orders,
                         bool per_reference) {
    const std::size_t n = hyps.size();
    if (orders < 1) throw py::value_error("orders must be >= 1");
    if (starts.empty() ? refs.size() != n : starts.size() != n) throw py::value_error("one reference set per hypothesis");
    py::list out(n);
    Interner interner;
    std::vector<std::vector<uint32_t>> seqs;
    std::vector<const std::vector<uint32_t>*> views;
    std::vector<int64_t> counts;
    clip::Clipper clipper;
    for (std::size_t seg = 0; seg < n; ++seg) {
        std::size_t lo = starts.empty() ? seg : static_cast<std::size_t>(starts[seg]);
        std::size_t hi = starts.empty() ? seg + 1 : seg + 1 < n ? static_cast<std::size_t>(starts[seg + 1]) : refs.size();
        if (lo > hi || hi > refs.size()) throw py::value_error("bad reference starts");
        std::size_t tokens = tokens_of(hyps[seg]);
        for (std::size_t r = lo; r < hi; ++r) tokens += tokens_of(refs[r]);
        interner.reset(tokens);
        const std::size_t m = 1 + hi - lo;
        if (seqs.size() < m) seqs.resize(m);
        read_sequence(hyps[seg], interner, seqs[0]);
        for (std::size_t r = lo; r < hi; ++r) read_sequence(refs[r], interner, seqs[1 + r - lo]);
        views.clear();
        for (std::size_t q = 0; q < m; ++q) views.push_back(&seqs[q]);
        const std::size_t rows = per_reference ? m - 1 : 1;
        counts.assign(rows * static_cast<std::size_t>(orders), 0);
        clipper.run(views.data(), m, orders, per_reference, counts.data());
        py::list result(rows);
        for (std::size_t r = 0; r < rows; ++r) {
            py::list row(orders);
            for (int k = 0; k < orders; ++k) {
                PyObject* v = PyLong_FromLongLong(counts[r * static_cast<std::size_t>(orders) + k]);
                if (!v) throw py::error_already_set();
                PyList_SET_ITEM(row.ptr(), k, v);
            }
            result[r] = row;
        }
        out[seg] = result;
    }
    return out;
}

void bind_bleu13a(py::module_& m);  // bleu13a.cpp

void bind_ngrams(py::module_& m) {
    bind_bleu13a(m);
    m.def("clipped_matches", &clipped_matches, py::arg("hyps"), py::arg("refs"), py::arg("starts"), py::arg("orders"),
          py::arg("per_reference"),
          "Clipped n-gram matches of small batches. Sequences are lists of tokens (str) or strings (code points).");
}

}  // namespace nlgm
