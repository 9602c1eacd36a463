// Clipped n-gram counts of small batches (BLEU, chrF): per segment and order, the number of hypothesis n-grams
// that the references hold, each counted at most as often as a reference holds it.
//
// The corpus path (nlgmetrics.algorithms.ngrams) indexes the references of a whole corpus with numpy, which pays
// off from a few dozen segments on and lets the index be reused for every system; on one or a few segments its
// fixed cost is hundreds of numpy calls. This is the small-batch path: the same counts, segment by segment, on
// hashed tokens. The test suite checks that both paths give the same statistics.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace nlgm {

namespace {

using Keys = std::vector<uint64_t>;

// Exact ids of the n-grams of every order for several sequences: order 1 is the token id, order k the rank of
// (order k-1 id, next token id) among all such pairs of the sequences. keys[s][k-1] are sequence s's order-k ids.
void all_orders(const std::vector<std::vector<uint32_t>>& seqs, int orders, std::vector<std::vector<Keys>>& keys) {
    keys.assign(seqs.size(), std::vector<Keys>(orders));
    uint32_t top = 0;
    for (std::size_t s = 0; s < seqs.size(); ++s) {
        keys[s][0].assign(seqs[s].begin(), seqs[s].end());
        for (uint32_t t : seqs[s]) top = std::max(top, t);
    }
    const int bits = std::max(1, static_cast<int>(std::bit_width(top)));
    if (bits * orders <= 64) {  // every n-gram fits one word exactly: its tokens side by side
        for (int k = 2; k <= orders; ++k)
            for (std::size_t s = 0; s < seqs.size(); ++s) {
                const auto& t = seqs[s];
                const Keys& prev = keys[s][k - 2];
                Keys& cur = keys[s][k - 1];
                for (std::size_t i = 0; i + k <= t.size(); ++i) cur.push_back((prev[i] << bits) | t[i + k - 1]);
            }
        return;
    }
    Keys all;
    for (int k = 2; k <= orders; ++k) {
        all.clear();
        for (std::size_t s = 0; s < seqs.size(); ++s) {
            const auto& t = seqs[s];
            const Keys& prev = keys[s][k - 2];
            Keys& cur = keys[s][k - 1];
            cur.clear();
            for (std::size_t i = 0; i + k <= t.size(); ++i) cur.push_back((prev[i] << 32) | t[i + k - 1]);
            all.insert(all.end(), cur.begin(), cur.end());
        }
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        for (std::size_t s = 0; s < seqs.size(); ++s)
            for (auto& v : keys[s][k - 1]) v = std::lower_bound(all.begin(), all.end(), v) - all.begin();
    }
}

// distinct values of a sorted key list with their counts
void counted(Keys& keys, Keys& values, std::vector<int64_t>& counts) {
    std::sort(keys.begin(), keys.end());
    values.clear();
    counts.clear();
    for (std::size_t i = 0; i < keys.size();) {
        std::size_t j = i;
        while (j < keys.size() && keys[j] == keys[i]) ++j;
        values.push_back(keys[i]);
        counts.push_back(static_cast<int64_t>(j - i));
        i = j;
    }
}

// for each distinct value of a (sorted), its count in b (sorted), by one merge
void counts_in(const Keys& a, const Keys& b, const std::vector<int64_t>& bc, std::vector<int64_t>& out) {
    out.assign(a.size(), 0);
    std::size_t j = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        while (j < b.size() && b[j] < a[i]) ++j;
        if (j < b.size() && b[j] == a[i]) out[i] = bc[j];
    }
}

struct Interner {
    std::unordered_map<std::string_view, uint32_t> ids;
    uint32_t id(std::string_view s) { return ids.emplace(s, static_cast<uint32_t>(ids.size())).first->second; }
};

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
    py::list out(n);
    Interner interner;
    std::vector<std::vector<uint32_t>> seqs;
    std::vector<std::vector<Keys>> keys;
    Keys hv, rv, scratch;
    std::vector<int64_t> hc, rc, in_ref;
    for (std::size_t seg = 0; seg < n; ++seg) {
        std::size_t lo = starts.empty() ? seg : static_cast<std::size_t>(starts[seg]);
        std::size_t hi = starts.empty() ? seg + 1 : seg + 1 < n ? static_cast<std::size_t>(starts[seg + 1]) : refs.size();
        interner.ids.clear();  // views stay valid: the strings belong to the lists
        seqs.assign(1 + hi - lo, {});
        read_sequence(hyps[seg], interner, seqs[0]);
        for (std::size_t r = lo; r < hi; ++r) read_sequence(refs[r], interner, seqs[1 + r - lo]);
        all_orders(seqs, orders, keys);
        const std::size_t n_refs = hi - lo;
        std::vector<std::vector<int64_t>> result(per_reference ? n_refs : 1, std::vector<int64_t>(orders, 0));
        for (int k = 0; k < orders; ++k) {
            scratch = keys[0][k];
            counted(scratch, hv, hc);
            std::vector<int64_t> best(hv.size(), 0);
            for (std::size_t r = 0; r < n_refs; ++r) {
                scratch = keys[1 + r][k];
                counted(scratch, rv, rc);
                counts_in(hv, rv, rc, in_ref);
                int64_t matches = 0;
                for (std::size_t g = 0; g < hv.size(); ++g) {
                    int64_t c = in_ref[g];
                    if (per_reference)
                        matches += std::min(hc[g], c);
                    else
                        best[g] = std::max(best[g], c);
                }
                if (per_reference) result[r][k] = matches;
            }
            if (!per_reference) {
                int64_t matches = 0;
                for (std::size_t g = 0; g < hv.size(); ++g) matches += std::min(hc[g], best[g]);
                result[0][k] = matches;
            }
        }
        out[seg] = py::cast(result);
    }
    return out;
}

void bind_ngrams(py::module_& m) {
    m.def("clipped_matches", &clipped_matches, py::arg("hyps"), py::arg("refs"), py::arg("starts"), py::arg("orders"),
          py::arg("per_reference"),
          "Clipped n-gram matches of small batches. Sequences are lists of tokens (str) or strings (code points).");
}

}  // namespace nlgm
