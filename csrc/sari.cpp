// SARI per segment, as HF evaluate's sari script computes it (tensor2tensor's SARI as adapted by EASSE).
//
// Input: the tokenized sentences of a batch as one string, one sentence per line (every source, then every
// prediction, then every reference), and the number of references of each segment. Output: per segment the
// SARI (0-1) and its keep, delete and add parts (each the mean over the orders 1-4).
//
// The numpy path of nlgmetrics.metrics.sari sorts the n-grams of the whole batch, which costs a few dozen array
// passes per order; this kernel counts each segment's n-grams in a hash table instead, and reads the tokens
// straight from the tokenized text. The arithmetic is the script's, operation for operation and in its order (the
// float sums over the source's n-grams in the order of their first occurrence), so each segment's numbers are the
// script's to the bit; the test suite checks it against the recorded outputs of the script and against the numpy
// and plain-Python paths.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "string_ids.hpp"

namespace py = pybind11;

namespace nlgm {

namespace {

// The length of the whitespace character at p, as Python's str.split() knows them (str.isspace), or 0.
inline std::size_t space_len(const unsigned char* p, const unsigned char* end) {
    const unsigned char c = p[0];
    if (c < 0x80) return (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) ? 1 : 0;
    if (c == 0xc2 && end - p >= 2) return (p[1] == 0x85 || p[1] == 0xa0) ? 2 : 0;  // U+0085, U+00A0
    if (end - p < 3) return 0;
    if (c == 0xe1) return (p[1] == 0x9a && p[2] == 0x80) ? 3 : 0;  // U+1680
    if (c == 0xe2) {
        if (p[1] == 0x80)  // U+2000-U+200A, U+2028, U+2029, U+202F
            return ((p[2] >= 0x80 && p[2] <= 0x8a) || p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf) ? 3 : 0;
        return (p[1] == 0x81 && p[2] == 0x9f) ? 3 : 0;  // U+205F
    }
    if (c == 0xe3) return (p[1] == 0x80 && p[2] == 0x80) ? 3 : 0;  // U+3000
    return 0;
}

struct Gram {
    uint64_t a, b;  // up to four 32-bit token ids side by side (the order is fixed per table)
    int64_t s, c, r;  // counts in the source, the prediction and all references together
};

inline uint64_t mix(uint64_t x) {  // splitmix64's finaliser
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// The n-grams of one segment and order, in the order they were first seen (source first), with their counts.
class GramTable {
   public:
    void reset(std::size_t expected) {
        std::size_t cap = 64;
        while (cap < 2 * expected) cap <<= 1;
        if (slots_.size() < cap) {
            slots_.assign(cap, 0);
            stamps_.assign(cap, 0);
        }
        mask_ = slots_.size() - 1;
        ++stamp_;
        grams.clear();
    }
    Gram& at(uint64_t a, uint64_t b) {
        std::size_t i = mix(a ^ mix(b)) & mask_;
        while (stamps_[i] == stamp_) {
            Gram& g = grams[slots_[i]];
            if (g.a == a && g.b == b) return g;
            i = (i + 1) & mask_;
        }
        stamps_[i] = stamp_;
        slots_[i] = static_cast<uint32_t>(grams.size());
        grams.push_back(Gram{a, b, 0, 0, 0});
        return grams.back();
    }
    std::vector<Gram> grams;

   private:
    std::vector<uint32_t> slots_;
    std::vector<uint64_t> stamps_;
    uint64_t stamp_ = 0;
    std::size_t mask_ = 0;
};

struct Span {
    const uint32_t* p;
    std::size_t n;
};

inline void key(const uint32_t* t, int n, uint64_t& a, uint64_t& b) {
    a = n == 1 ? t[0] : (uint64_t(t[0]) << 32) | t[1];
    b = n <= 2 ? 0 : n == 3 ? uint64_t(t[2]) << 32 : (uint64_t(t[2]) << 32) | t[3];
}

// F1 as the script writes it: 2 * p * r / (p + r), 0 when both are 0.
inline double f1(double p, double r) { return (p > 0 || r > 0) ? 2 * p * r / (p + r) : 0.0; }

// The script's SARIsent on one segment: {SARI, keep, delete, add}.
void segment(const Span& src, const Span& pred, const Span* refs, int64_t k, GramTable& table, double* out) {
    double keep_total = 0.0, del_total = 0.0, add_total = 0.0;
    std::size_t ref_tokens = 0;
    for (int64_t j = 0; j < k; ++j) ref_tokens += refs[j].n;
    for (int n = 1; n <= 4; ++n) {
        table.reset(src.n + pred.n + ref_tokens);
        uint64_t a, b;
        for (std::size_t i = 0; i + n <= src.n; ++i) {
            key(src.p + i, n, a, b);
            table.at(a, b).s += 1;
        }
        const std::size_t n_src = table.grams.size();
        for (std::size_t i = 0; i + n <= pred.n; ++i) {
            key(pred.p + i, n, a, b);
            table.at(a, b).c += 1;
        }
        for (int64_t j = 0; j < k; ++j)
            for (std::size_t i = 0; i + n <= refs[j].n; ++i) {
                key(refs[j].p + i, n, a, b);
                table.at(a, b).r += 1;
            }
        // keep and delete: the source's n-grams, in the order of their first occurrence (the script's sums)
        double keep_sum = 0.0, del_sum = 0.0;
        int64_t n_kept = 0, keep_good = 0, keep_all = 0, n_deleted = 0;
        for (std::size_t g = 0; g < n_src; ++g) {
            const Gram& e = table.grams[g];
            const int64_t ks = e.s * k, kc = e.c * k, r = e.r;
            if (kc > 0) {
                const int64_t kept = std::min(ks, kc);
                ++n_kept;
                const int64_t good = std::min(kept, r);
                if (good > 0) {
                    keep_sum += static_cast<double>(good) / static_cast<double>(kept);
                    keep_good += good;
                }
            }
            keep_all += std::min(ks, r);
            if (ks > kc) {
                const int64_t deleted = ks - kc;
                ++n_deleted;
                if (deleted > r) del_sum += static_cast<double>(deleted - r) / static_cast<double>(deleted);
            }
        }
        // add: the n-grams the source lacks (sets, not counts)
        int64_t added = 0, add_good = 0, add_all = 0;
        for (std::size_t g = n_src; g < table.grams.size(); ++g) {
            const Gram& e = table.grams[g];
            if (e.c > 0) {
                ++added;
                if (e.r > 0) ++add_good;
            }
            if (e.r > 0) ++add_all;
        }
        const double keep_p = n_kept ? keep_sum / static_cast<double>(n_kept) : 1.0;
        const double keep_r = keep_all ? static_cast<double>(keep_good) / static_cast<double>(keep_all) : 1.0;
        const double del_p = n_deleted ? del_sum / static_cast<double>(n_deleted) : 1.0;
        const double add_p = added ? static_cast<double>(add_good) / static_cast<double>(added) : 1.0;
        const double add_r = add_all ? static_cast<double>(add_good) / static_cast<double>(add_all) : 1.0;
        keep_total += f1(keep_p, keep_r);
        del_total += del_p;
        add_total += f1(add_p, add_r);
    }
    const double keep = keep_total / 4, del = del_total / 4, add = add_total / 4;
    out[0] = (keep + del + add) / 3;
    out[1] = keep;
    out[2] = del;
    out[3] = add;
}

// text: every source, every prediction, every reference, one per line ("\n"); tokens are separated by Python's
// whitespace (spaces_only: by single spaces, empty tokens kept, as str.split(" ")). ref_counts: the number of
// references of each segment (a list, or any sequence of integers). Returns an (n_segments, 4) array: SARI, keep,
// delete, add; with lists, the four columns as Python lists of floats instead (no numpy: a fresh process that
// scores a few segments does not import it).
py::object sari_segments(std::string_view text, const std::vector<int64_t>& ref_counts, bool spaces_only, bool lists) {
    const std::size_t n_seg = ref_counts.size();
    const int64_t* counts = ref_counts.data();
    std::size_t n_refs = 0;
    for (std::size_t i = 0; i < n_seg; ++i) {
        if (counts[i] < 0) throw std::invalid_argument("a negative number of references");
        n_refs += static_cast<std::size_t>(counts[i]);
    }
    const std::size_t n_lines = 2 * n_seg + n_refs;
    std::vector<uint32_t> ids;
    ids.reserve(text.size() / 4 + n_lines);
    std::vector<std::size_t> starts;  // where each line's tokens start in ids
    starts.reserve(n_lines + 1);
    {
        py::gil_scoped_release release;
        StringIds interner;  // ids from 1; 0 is the empty token (an empty sentence is one empty token in the script)
        const auto* p = reinterpret_cast<const unsigned char*>(text.data());
        const auto* end = p + text.size();
        while (true) {  // one line per iteration
            starts.push_back(ids.size());
            const auto* stop = static_cast<const unsigned char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
            if (stop == nullptr) stop = end;
            if (spaces_only) {
                const auto* tok = p;
                for (const auto* q = p;; ++q) {
                    if (q == stop || *q == ' ') {
                        const std::size_t len = static_cast<std::size_t>(q - tok);
                        ids.push_back(len ? interner.id(std::string_view(reinterpret_cast<const char*>(tok), len)) : 0);
                        if (q == stop) break;
                        tok = q + 1;
                    }
                }
            } else {
                const std::size_t before = ids.size();
                const auto* q = p;
                while (q < stop) {
                    std::size_t w;
                    while (q < stop && (w = space_len(q, stop)) != 0) q += w;
                    if (q >= stop) break;
                    const auto* tok = q;
                    while (q < stop && space_len(q, stop) == 0) ++q;
                    ids.push_back(interner.id(std::string_view(reinterpret_cast<const char*>(tok), static_cast<std::size_t>(q - tok))));
                }
                if (ids.size() == before) ids.push_back(0);  // an empty sentence: one empty token
            }
            if (stop == end) break;
            p = stop + 1;
        }
    }
    if (starts.size() != n_lines) throw std::invalid_argument("the text does not hold one line per sentence");
    starts.push_back(ids.size());
    auto span = [&](std::size_t line) { return Span{ids.data() + starts[line], starts[line + 1] - starts[line]}; };
    std::vector<double> values(4 * n_seg);
    double* o = values.data();
    {
        py::gil_scoped_release release;
        GramTable table;
        std::vector<Span> refs;
        std::size_t ref_line = 2 * n_seg;
        for (std::size_t i = 0; i < n_seg; ++i) {
            refs.clear();
            for (int64_t j = 0; j < counts[i]; ++j) refs.push_back(span(ref_line++));
            segment(span(i), span(n_seg + i), refs.data(), counts[i], table, o + 4 * i);
        }
    }
    if (lists) {
        py::tuple columns(4);
        for (std::size_t c = 0; c < 4; ++c) {
            py::list column(n_seg);
            for (std::size_t i = 0; i < n_seg; ++i) column[i] = py::float_(values[4 * i + c]);
            columns[c] = std::move(column);
        }
        return std::move(columns);
    }
    py::array_t<double> out({static_cast<py::ssize_t>(n_seg), static_cast<py::ssize_t>(4)});
    std::copy(values.begin(), values.end(), out.mutable_data());
    return std::move(out);
}

}  // namespace

void bind_sari(py::module_& m) {
    m.def("sari_segments", &sari_segments, py::arg("text"), py::arg("ref_counts"), py::arg("spaces_only") = false,
          py::arg("lists") = false,
          "Per-segment SARI of HF evaluate's sari script, from the tokenized sentences (sources, predictions, "
          "references; one per line): an (n, 4) array of SARI, keep, delete and add, or (lists) the four columns "
          "as lists.");
}

}  // namespace nlgm
