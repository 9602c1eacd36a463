// BLEU's statistics under sacrebleu's default tokenizer (13a), in one pass: tokenize each hypothesis and its
// references as sacrebleu 2.6 does, then count the clipped n-gram matches per order (BLEU's clipping: a hypothesis
// n-gram counts at most as often as the reference that holds it most often).
//
// Why compiled: 13a is four regular-expression substitutions per line; in Python they cost more than everything
// else of a one-pair BLEU call, and the n-gram counting of a corpus another large share. This kernel is what BLEU
// uses for the 13a tokenizer wherever it is built; without it (no compiler at install time) BLEU tokenizes with
// nlgmetrics.text.mt_tokenize.Tokenizer13a and counts on its numpy path. The test suite holds both to sacrebleu's
// tokens and to a naive restatement of the counts.
//
// The 13a steps, exactly as sacrebleu's Tokenizer13a and TokenizerRegexp apply them to a line:
//   0. line.rstrip() (BLEU's preprocessing), then the language-independent part: remove "<skipped>", remove
//      "-\n", "\n" -> " ", and if the line holds "&": &quot; &amp; &lt; &gt; unescaped in that order (each one a
//      str.replace over the whole line, so "&amp;lt;" becomes "<");
//   1. ([\{-\~\[-\` -\&\(-\+\:-\@\/])  ->  " \1 "   on " " + line + " "
//   2. ([^0-9])([\.,])                  ->  "\1 \2 "
//   3. ([\.,])([^0-9])                  ->  " \1 \2"
//   4. ([0-9])(-)                       ->  "\1 \2 "
//   5. split on whitespace as Python's str.split() does (Py_UNICODE_ISSPACE).
// Each of steps 1-4 is re.sub: matches are found left to right and never overlap (after a match of two
// characters the search goes on after them), which is what the loops below do.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ngram_clip.hpp"

namespace py = pybind11;

namespace nlgm {

namespace {

using Text = std::u32string;

inline bool is_digit(char32_t c) { return c >= U'0' && c <= U'9'; }
inline bool is_period_comma(char32_t c) { return c == U'.' || c == U','; }
// [\{-\~\[-\` -\&\(-\+\:-\@\/]
inline bool in_class_13a(char32_t c) {
    return (c >= 0x7B && c <= 0x7E) || (c >= 0x5B && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
           (c >= 0x28 && c <= 0x2B) || (c >= 0x3A && c <= 0x40) || c == 0x2F;
}

void read_text(PyObject* obj, Text& out) {
    if (!PyUnicode_Check(obj)) throw py::type_error("expected a str");
    const Py_ssize_t n = PyUnicode_GET_LENGTH(obj);
    const int kind = PyUnicode_KIND(obj);
    const void* data = PyUnicode_DATA(obj);
    out.resize(static_cast<std::size_t>(n));
    if (kind == PyUnicode_1BYTE_KIND) {
        const auto* p = static_cast<const Py_UCS1*>(data);
        for (Py_ssize_t i = 0; i < n; ++i) out[i] = p[i];
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const auto* p = static_cast<const Py_UCS2*>(data);
        for (Py_ssize_t i = 0; i < n; ++i) out[i] = p[i];
    } else {
        const auto* p = static_cast<const Py_UCS4*>(data);
        for (Py_ssize_t i = 0; i < n; ++i) out[i] = p[i];
    }
}

// str.replace(pat, rep): every non-overlapping occurrence, left to right
void replace_all(Text& s, std::u32string_view pat, std::u32string_view rep, Text& tmp) {
    std::size_t pos = s.find(pat);
    if (pos == Text::npos) return;
    tmp.clear();
    std::size_t last = 0;
    while (pos != Text::npos) {
        tmp.append(s, last, pos - last);
        tmp.append(rep);
        last = pos + pat.size();
        pos = s.find(pat, last);
    }
    tmp.append(s, last, Text::npos);
    s.swap(tmp);
}

// One pass of a two-character substitution (steps 2-4): at each position, if match(s[i], s[i+1]) the two
// characters are written as emit does and the pass goes on after them, else s[i] is copied (re.sub's scan).
template <class Match, class Emit>
void pass2(Text& s, Text& tmp, Match&& match, Emit&& emit) {
    const std::size_t n = s.size();
    tmp.resize(2 * n + 2);  // each match of two characters writes at most four
    char32_t* out = tmp.data();
    const char32_t* in = s.data();
    std::size_t i = 0;
    while (i + 1 < n) {
        if (match(in[i], in[i + 1])) {
            out = emit(out, in[i], in[i + 1]);
            i += 2;
        } else {
            *out++ = in[i++];
        }
    }
    if (i < n) *out++ = in[i];
    tmp.resize(static_cast<std::size_t>(out - tmp.data()));
    s.swap(tmp);
}

// Steps 0-4 on s (tmp is scratch); the tokens are then the whitespace-separated runs of s.
void steps_13a(Text& s, Text& tmp) {
    while (!s.empty() && Py_UNICODE_ISSPACE(s.back())) s.pop_back();
    bool has_lt = false, has_nl = false, has_amp = false, has_pc = false, has_dash = false;
    for (char32_t c : s) {
        has_lt |= c == U'<';
        has_nl |= c == U'\n';
        has_amp |= c == U'&';
    }
    if (has_lt) replace_all(s, U"<skipped>", U"", tmp);
    if (has_nl) {
        replace_all(s, U"-\n", U"", tmp);
        replace_all(s, U"\n", U" ", tmp);
    }
    if (has_amp) {
        replace_all(s, U"&quot;", U"\"", tmp);
        replace_all(s, U"&amp;", U"&", tmp);
        replace_all(s, U"&lt;", U"<", tmp);
        replace_all(s, U"&gt;", U">", tmp);
    }
    // step 1, on " " + s + " "
    {
        const std::size_t n = s.size();
        tmp.resize(3 * n + 2);
        char32_t* out = tmp.data();
        *out++ = U' ';
        for (char32_t c : s) {
            if (in_class_13a(c)) {
                out[0] = U' ';
                out[1] = c;
                out[2] = U' ';
                out += 3;
            } else {
                has_pc |= is_period_comma(c);
                has_dash |= c == U'-';
                *out++ = c;
            }
        }
        *out++ = U' ';
        tmp.resize(static_cast<std::size_t>(out - tmp.data()));
        s.swap(tmp);
    }
    // "\1 \2 " (steps 2 and 4) and " \1 \2" (step 3)
    const auto space_after = [](char32_t* o, char32_t a, char32_t b) {
        o[0] = a;
        o[1] = U' ';
        o[2] = b;
        o[3] = U' ';
        return o + 4;
    };
    const auto space_before = [](char32_t* o, char32_t a, char32_t b) {
        o[0] = U' ';
        o[1] = a;
        o[2] = U' ';
        o[3] = b;
        return o + 4;
    };
    if (has_pc) {
        // step 2: ([^0-9])([\.,]) -> "\1 \2 "
        pass2(s, tmp, [](char32_t a, char32_t b) { return !is_digit(a) && is_period_comma(b); }, space_after);
        // step 3: ([\.,])([^0-9]) -> " \1 \2"
        pass2(s, tmp, [](char32_t a, char32_t b) { return is_period_comma(a) && !is_digit(b); }, space_before);
    }
    if (has_dash) {
        // step 4: ([0-9])(-) -> "\1 \2 "
        pass2(s, tmp, [](char32_t a, char32_t b) { return is_digit(a) && b == U'-'; }, space_after);
    }
}

// the whitespace-separated runs of s, as str.split() finds them
template <class F>
void for_each_token(const Text& s, F&& f) {
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        while (i < n && Py_UNICODE_ISSPACE(s[i])) ++i;
        if (i >= n) break;
        std::size_t j = i;
        while (j < n && !Py_UNICODE_ISSPACE(s[j])) ++j;
        f(std::u32string_view(s.data() + i, j - i));
        i = j;
    }
}

// The hash of a token (a view into a segment's text).
struct ViewHash {
    uint64_t operator()(std::u32string_view t) const {
        uint64_t h = 0x9E3779B97F4A7C15ull ^ t.size();
        for (char32_t c : t) h = (h ^ c) * 0x100000001B3ull;
        return h ^ (h >> 29);
    }
};

// Token ids local to one segment (its hypothesis and references), over views into the segment's texts.
using Interner = clip::DenseIds<std::u32string_view, ViewHash>;

py::list list_of(const std::vector<int64_t>& values) {
    PyObject* out = PyList_New(static_cast<Py_ssize_t>(values.size()));
    if (!out) throw py::error_already_set();
    for (std::size_t i = 0; i < values.size(); ++i) {
        PyObject* v = PyLong_FromLongLong(values[i]);
        if (!v) {
            Py_DECREF(out);
            throw py::error_already_set();
        }
        PyList_SET_ITEM(out, static_cast<Py_ssize_t>(i), v);
    }
    return py::reinterpret_steal<py::list>(out);
}

}  // namespace

// The 13a tokens of each line (after rstrip), as sacrebleu's BLEU splits its tokenized line.
py::list tokenize_13a(const py::list& lines) {
    py::list out(lines.size());
    Text s, tmp;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        read_text(lines[i].ptr(), s);
        steps_13a(s, tmp);
        py::list tokens;
        for_each_token(s, [&](std::u32string_view t) {
            PyObject* o = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, t.data(), static_cast<Py_ssize_t>(t.size()));
            if (!o) throw py::error_already_set();
            tokens.append(py::reinterpret_steal<py::object>(o));
        });
        out[i] = tokens;
    }
    return out;
}

// For each segment (hypothesis hyps[i], references refs[starts[i]:starts[i+1]], or refs[i] when starts is empty):
// the clipped matches of orders 1..orders, the hypothesis length in tokens and each reference's length. Returns
// (matches: n * orders values, segment by segment; hypothesis lengths; reference lengths, in the order of refs).
py::tuple bleu_13a(const py::list& hyps, const py::list& refs, const std::vector<int64_t>& starts, int orders) {
    const std::size_t n = hyps.size();
    if (orders < 1) throw py::value_error("orders must be >= 1");
    if (starts.empty() ? refs.size() != n : starts.size() != n) throw py::value_error("one reference set per hypothesis");
    const std::size_t n_orders = static_cast<std::size_t>(orders);
    std::vector<int64_t> matches(n * n_orders, 0), hyp_lens(n, 0), ref_lens(refs.size(), 0);
    std::vector<Text> texts;
    Text tmp;
    Interner ids;
    std::vector<std::vector<uint32_t>> seqs;
    std::vector<const std::vector<uint32_t>*> views;
    clip::Clipper clipper;
    for (std::size_t seg = 0; seg < n; ++seg) {
        const std::size_t lo = starts.empty() ? seg : static_cast<std::size_t>(starts[seg]);
        const std::size_t hi = starts.empty() ? seg + 1
                               : seg + 1 < n ? static_cast<std::size_t>(starts[seg + 1])
                                             : refs.size();
        if (lo > hi || hi > refs.size()) throw py::value_error("bad reference starts");
        const std::size_t m = 1 + hi - lo;
        if (texts.size() < m) texts.resize(m);
        if (seqs.size() < m) seqs.resize(m);
        std::size_t chars = 0;
        for (std::size_t k = 0; k < m; ++k) {
            read_text(k == 0 ? hyps[seg].ptr() : refs[lo + k - 1].ptr(), texts[k]);
            steps_13a(texts[k], tmp);
            chars += texts[k].size();
        }
        ids.reset(chars);  // the views point into texts, which stay put until the next segment
        for (std::size_t k = 0; k < m; ++k) {
            auto& seq = seqs[k];
            seq.clear();
            for_each_token(texts[k], [&](std::u32string_view t) { seq.push_back(ids.id(t)); });
        }
        hyp_lens[seg] = static_cast<int64_t>(seqs[0].size());
        for (std::size_t r = lo; r < hi; ++r) ref_lens[r] = static_cast<int64_t>(seqs[1 + r - lo].size());
        if (seqs[0].empty()) continue;
        views.clear();
        for (std::size_t q = 0; q < m; ++q) views.push_back(&seqs[q]);
        clipper.run(views.data(), m, orders, false, matches.data() + seg * n_orders);
    }
    return py::make_tuple(list_of(matches), list_of(hyp_lens), list_of(ref_lens));
}

void bind_bleu13a(py::module_& m) {
    m.def("tokenize_13a", &tokenize_13a, py::arg("lines"),
          "sacrebleu's 13a tokens of each line (after rstrip), as its BLEU splits them.");
    m.def("bleu_13a", &bleu_13a, py::arg("hyps"), py::arg("refs"), py::arg("starts"), py::arg("orders"),
          "BLEU statistics under the 13a tokenizer: (clipped matches per segment and order, hypothesis lengths, "
          "reference lengths).");
}

}  // namespace nlgm
