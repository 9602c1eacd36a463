// The ROUGE batch kernel (see rouge.hpp) and its Python binding.
#include "rouge_kernel.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace nlgm {

namespace {

struct Texts {
    std::vector<Encoded> enc;
};

// Token counts of one text, kept in `counts` (indexed by token id) for the tokens listed in `touched`.
struct Counter {
    std::vector<int32_t> counts;
    std::vector<int32_t> touched;
    void add(const std::vector<int32_t>& tokens) {
        for (int32_t t : tokens) {
            if (counts[t] == 0) touched.push_back(t);
            ++counts[t];
        }
    }
    void clear() {
        for (int32_t t : touched) counts[t] = 0;
        touched.clear();
    }
};

struct Workspace {
    std::vector<int32_t> slot;
    Masks masks;
    std::vector<uint64_t> ka, kb, columns;
    std::vector<char> marked;
    Counter pred_count, ref_count, mark_count;
    Overlap overlap;
};

double lcs_length(Workspace& ws, const std::vector<int32_t>& ref, const std::vector<int32_t>& can) {
    if (ref.empty() || can.empty()) return 0.0;
    ws.masks.build(ref.data(), ref.size(), ws.slot);
    double out = static_cast<double>(lcs_run(ws.masks, ws.slot, ref.size(), can.data(), can.size(), nullptr));
    ws.masks.release(ws.slot);
    return out;
}

PairCounts ngram_counts(Workspace& ws, const Encoded& p, const Encoded& r, int n) {
    const std::size_t np = p.tokens.size(), nr = r.tokens.size();
    double pt = np >= static_cast<std::size_t>(n) ? static_cast<double>(np - n + 1) : 0.0;
    double rt = nr >= static_cast<std::size_t>(n) ? static_cast<double>(nr - n + 1) : 0.0;
    if (pt == 0 || rt == 0) return {0.0, pt, rt};
    if (n == 1) {  // unigrams: the clipped overlap from per-token counts (ids are dense), no sorting
        ws.pred_count.add(p.tokens);
        ws.ref_count.add(r.tokens);
        int64_t hits = 0;
        for (int32_t t : ws.pred_count.touched) hits += std::min(ws.pred_count.counts[t], ws.ref_count.counts[t]);
        ws.pred_count.clear();
        ws.ref_count.clear();
        return {static_cast<double>(hits), pt, rt};
    }
    ngram_keys(p.tokens.data(), np, r.tokens.data(), nr, n, ws.ka, ws.kb);
    return {static_cast<double>(ws.overlap.count(ws.ka, ws.kb)), pt, rt};
}

PairCounts skip_counts(Workspace& ws, const Encoded& p, const Encoded& r, const TypeSpec& t) {
    skip_items(p.tokens.data(), p.tokens.size(), t.skip, t.unigrams, ws.ka);
    skip_items(r.tokens.data(), r.tokens.size(), t.skip, t.unigrams, ws.kb);
    double pt = static_cast<double>(ws.ka.size()), rt = static_cast<double>(ws.kb.size());
    return {static_cast<double>(ws.overlap.count(ws.ka, ws.kb)), pt, rt};
}

// rouge-score's _summary_level_lcs / ROUGE-1.5.5's summary-level LCS: the union LCS of each reference sentence
// over the prediction's sentences, clipped by the unigram counts of both (n-gram) texts.
PairCounts union_lcs_counts(Workspace& ws, const Encoded& pt, const Encoded& rt, const Encoded& pl, const Encoded& rl,
                            bool split) {
    PairCounts out{0.0, static_cast<double>(pt.tokens.size()), static_cast<double>(rl.tokens.size())};
    if (rl.sentences.empty() || pl.sentences.empty()) return out;
    if (!split && rl.sentences.size() == 1 && pl.sentences.size() == 1) {
        out.hits = lcs_length(ws, rt.tokens, pt.tokens);  // one sentence each: the union LCS is the LCS
        return out;
    }
    Counter& marks = ws.mark_count;
    for (const auto& [rb, re] : rl.sentences) {
        const int32_t* ref = rl.tokens.data() + rb;
        std::size_t m = static_cast<std::size_t>(re - rb);
        ws.marked.assign(m, 0);
        ws.masks.build(ref, m, ws.slot);
        for (const auto& [cb, ce] : pl.sentences)
            canonical_lcs_marks(ws.masks, ws.slot, m, pl.tokens.data() + cb, static_cast<std::size_t>(ce - cb),
                                ws.marked, ws.columns);
        ws.masks.release(ws.slot);
        for (std::size_t x = 0; x < m; ++x)
            if (ws.marked[x]) {
                int32_t t = ref[x];
                if (marks.counts[t] == 0) marks.touched.push_back(t);
                ++marks.counts[t];
            }
    }
    ws.pred_count.add(pt.tokens);
    ws.ref_count.add(rt.tokens);
    int64_t hits = 0;
    for (int32_t t : marks.touched)
        hits += std::min({marks.counts[t], ws.pred_count.counts[t], ws.ref_count.counts[t]});
    marks.clear();
    ws.pred_count.clear();
    ws.ref_count.clear();
    out.hits = static_cast<double>(hits);
    return out;
}

// ROUGE-1.5.5's ROUGE-W (wlcs): per reference sentence, runs of consecutive hits weigh len ** w; hits are clipped
// by the unigram counts of both texts in reading order, as the script's loop does.
PairCounts weighted_counts(Workspace& ws, const Encoded& pt, const Encoded& rt, const Encoded& pl, const Encoded& rl,
                           double w) {
    ws.pred_count.add(pt.tokens);
    ws.ref_count.add(rt.tokens);
    // budget per token: both unigram counts, decremented by every hit (kept in pred_count)
    for (int32_t t : ws.pred_count.touched) ws.pred_count.counts[t] = std::min(ws.pred_count.counts[t], ws.ref_count.counts[t]);
    double hit = 0.0, base = 0.0;
    for (const auto& [rb, re] : rl.sentences) {
        const int32_t* ref = rl.tokens.data() + rb;
        std::size_t m = static_cast<std::size_t>(re - rb);
        ws.marked.assign(m, 0);
        for (const auto& [cb, ce] : pl.sentences)
            weighted_lcs_marks(ref, m, pl.tokens.data() + cb, static_cast<std::size_t>(ce - cb), w, ws.marked);
        base += std::pow(static_cast<double>(m), w);
        int64_t run = 0;
        for (std::size_t j = 0; j < m; ++j) {
            if (!ws.marked[j]) continue;
            int32_t& budget = ws.pred_count.counts[ref[j]];
            if (budget <= 0) continue;
            --budget;
            ++run;
            if (j + 1 == m || !ws.marked[j + 1]) {
                hit += std::pow(static_cast<double>(run), w);
                run = 0;
            }
        }
    }
    ws.pred_count.clear();
    ws.ref_count.clear();
    return {hit, static_cast<double>(pt.tokens.size()), base};
}

void pair_scores(const TypeSpec& t, const PairCounts& c, const Settings& s, double* prf) {
    double rec, prec;
    if (t.kind == KIND_W) {
        rec = std::pow(divide(c.hits, c.ref_total), 1 / s.weight);
        prec = std::pow(divide(c.hits, std::pow(c.pred_total, s.weight)), 1 / s.weight);
    } else {
        rec = divide(c.hits, c.ref_total);
        prec = divide(c.hits, c.pred_total);
    }
    prf[0] = prec;
    prf[1] = rec;
    prf[2] = fmeasure(prec, rec, s.beta, s.alpha, s.has_alpha);
}

// one segment's precision, recall and F of type t from its pairs' counts
void segment_scores(const TypeSpec& t, const PairCounts* c, std::size_t k, const Settings& s, double* prf) {
    const double w = s.weight;
    if (!s.perl) {
        if (s.multi == MULTI_MAX_PR) {  // pycocoevalcap: the highest precision and the highest recall, then F
            double prec = 0, rec = 0;
            for (std::size_t i = 0; i < k; ++i) {
                double cur[3];
                pair_scores(t, c[i], s, cur);
                if (i == 0 || cur[0] > prec) prec = cur[0];
                if (i == 0 || cur[1] > rec) rec = cur[1];
            }
            prf[0] = prec;
            prf[1] = rec;
            prf[2] = fmeasure(prec, rec, s.beta, s.alpha, s.has_alpha);
            return;
        }
        if (s.multi == MULTI_BEST) {
            double best[3] = {0, 0, 0};
            for (std::size_t i = 0; i < k; ++i) {
                double cur[3];
                pair_scores(t, c[i], s, cur);
                if (i == 0 || cur[2] > best[2]) std::copy(cur, cur + 3, best);
            }
            std::copy(best, best + 3, prf);
            return;
        }
        double hits = 0, ref = 0, pred = 0;
        for (std::size_t i = 0; i < k; ++i) {
            hits += c[i].hits;
            ref += c[i].ref_total;
            pred += t.kind == KIND_W ? std::pow(c[i].pred_total, w) : c[i].pred_total;
        }
        double rec = divide(hits, ref), prec = divide(hits, pred);
        if (t.kind == KIND_W) {
            rec = std::pow(rec, 1 / w);
            prec = std::pow(prec, 1 / w);
        }
        prf[0] = prec;
        prf[1] = rec;
        prf[2] = fmeasure(prec, rec, s.beta, s.alpha, s.has_alpha);
        return;
    }
    // ROUGE-1.5.5: -f A pools hits and counts, -f B keeps the reference with the best recall (n-gram and
    // skip-bigram recalls compared after rounding to five decimals, as the script compares them); R and P are
    // rounded to five decimals and F is computed from the rounded values, then rounded.
    double hits = 0, ref = 0, pred = 0;
    auto ref_den = [&](const PairCounts& x) { return t.kind == KIND_W ? std::pow(x.ref_total, w) : x.ref_total; };
    auto pred_den = [&](const PairCounts& x) { return t.kind == KIND_W ? std::pow(x.pred_total, w) : x.pred_total; };
    if (s.multi == MULTI_BEST) {
        std::size_t pick = 0;
        double top = 0;
        for (std::size_t i = 0; i < k; ++i) {
            double score;
            if (t.kind == KIND_N || t.kind == KIND_S)
                score = c[i].ref_total != 0 ? round5(divide(c[i].hits, c[i].ref_total)) : 0.0;
            else if (t.kind == KIND_W)
                score = std::pow(divide(c[i].hits, c[i].ref_total), 1 / w);
            else
                score = divide(c[i].hits, c[i].ref_total);
            if (i == 0 || score > top) {
                top = score;
                pick = i;
            }
        }
        hits = c[pick].hits;
        ref = ref_den(c[pick]);
        pred = pred_den(c[pick]);
    } else {
        for (std::size_t i = 0; i < k; ++i) {
            hits += c[i].hits;
            ref += ref_den(c[i]);
            pred += pred_den(c[i]);
        }
    }
    double rec = divide(hits, ref), prec = divide(hits, pred);
    if (t.kind == KIND_W) {
        rec = std::pow(rec, 1 / w);
        prec = std::pow(prec, 1 / w);
    }
    rec = round5(rec);
    prec = round5(prec);
    prf[0] = prec;
    prf[1] = rec;
    prf[2] = round5(fmeasure(prec, rec, s.beta, s.alpha, s.has_alpha));
}

const char* utf8_of(PyObject* obj, Py_ssize_t* size) {
    const char* data = PyUnicode_AsUTF8AndSize(obj, size);
    if (!data) throw py::error_already_set();
    return data;
}

void encode_item(const py::handle& item, bool sentences, Vocabulary& vocab, Encoded& out) {
    PyObject* obj = item.ptr();
    if (PyUnicode_Check(obj)) {
        Py_ssize_t size;
        const char* data = utf8_of(obj, &size);
        encode_ascii(data, static_cast<std::size_t>(size), sentences, vocab, out);
        return;
    }
    // tokens given by Python: a list of sentences, each a list of tokens
    for (const py::handle& sentence : item) {
        int32_t begin = static_cast<int32_t>(out.tokens.size());
        for (const py::handle& token : sentence) {
            Py_ssize_t size;
            const char* data = utf8_of(token.ptr(), &size);
            int32_t id = vocab.id(std::string_view(data, static_cast<std::size_t>(size)));
            if (id != kDropped) out.tokens.push_back(id);
        }
        int32_t end = static_cast<int32_t>(out.tokens.size());
        if (end > begin) out.sentences.emplace_back(begin, end);
    }
}

}  // namespace

namespace {

// Encodes the items of a list into `enc` (appended); identical strings are encoded once. Returns each item's index.
std::vector<int32_t> encode_all(const py::list& items, bool sentences, Vocabulary& vocab, std::vector<Encoded>& enc,
                                std::unordered_map<std::string_view, int32_t>& seen) {
    std::vector<int32_t> where(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        PyObject* obj = items[i].ptr();
        if (PyUnicode_Check(obj)) {
            Py_ssize_t size;
            const char* data = utf8_of(obj, &size);
            auto [at, fresh] = seen.emplace(std::string_view(data, static_cast<std::size_t>(size)),
                                            static_cast<int32_t>(enc.size()));
            where[i] = at->second;
            if (!fresh) continue;
        } else {
            where[i] = static_cast<int32_t>(enc.size());
        }
        enc.emplace_back();
        encode_item(items[i], sentences, vocab, enc.back());
    }
    return where;
}

}  // namespace

RougePlan::RougePlan(const std::vector<std::tuple<int, int, int, bool>>& types, bool perl, int multi, double beta,
                     std::optional<double> alpha, double weight, bool sentences, double grid)
    : types_(types),
      alpha_(alpha),
      settings_{perl, multi, beta, alpha.value_or(0.0), alpha.has_value(), weight, false},
      sentences_(sentences),
      grid_(grid) {
    for (const auto& [kind, n, skip, uni] : types) specs_.push_back({kind, n, skip, uni});
}

py::tuple RougePlan::args() const {
    return py::make_tuple(types_, settings_.perl, settings_.multi, settings_.beta, alpha_, settings_.weight, sentences_,
                          grid_);
}

py::object RougePlan::scores(RougeEncoder& encoder, const py::list& preds, const py::list& refs,
                             const std::vector<int64_t>& starts, const py::object& lcs_preds,
                             const py::object& lcs_refs, bool rows) const {
    const std::size_t n_seg = preds.size();
    const std::size_t n_pairs = refs.size();
    const std::size_t k = specs_.size();
    const bool split = !lcs_preds.is_none();
    Settings s = settings_;
    s.split = split;

    Vocabulary& vocab = encoder.vocab();
    vocab.trim();
    std::vector<Encoded> enc;
    enc.reserve(n_seg + n_pairs);
    std::unordered_map<std::string_view, int32_t> seen;  // views into the strings, which outlive the call
    std::vector<int32_t> pred_of = encode_all(preds, sentences_, vocab, enc, seen);
    std::vector<int32_t> ref_of = encode_all(refs, sentences_, vocab, enc, seen);
    std::vector<int32_t> pred_lcs_of = pred_of, ref_lcs_of = ref_of;
    if (split) {
        pred_lcs_of = encode_all(lcs_preds.cast<py::list>(), sentences_, vocab, enc, seen);
        ref_lcs_of = encode_all(lcs_refs.cast<py::list>(), sentences_, vocab, enc, seen);
    }

    // kept between calls: every per-token array is left as it was found (-1 or 0), so only growth costs
    static thread_local Workspace ws;
    const std::size_t V = static_cast<std::size_t>(vocab.size()) + 1;
    if (ws.slot.size() < V) {
        ws.slot.resize(V, -1);
        ws.pred_count.counts.resize(V, 0);
        ws.ref_count.counts.resize(V, 0);
        ws.mark_count.counts.resize(V, 0);
    }

    // (segments, types, 3): P, R, F; with a grid, (segments, types, 6): each value v as hi = v rounded to a multiple
    // of 1/grid, then lo = v - hi (both exact), so that sums of many of them can be exact
    const std::size_t width = grid_ > 0 ? 6 : 3;
    std::vector<double> values(n_seg * k * width);
    std::vector<PairCounts> counts;
    for (std::size_t seg = 0; seg < n_seg; ++seg) {
        std::size_t lo = starts.empty() ? seg : static_cast<std::size_t>(starts[seg]);
        std::size_t hi = starts.empty() ? seg + 1 : seg + 1 < n_seg ? static_cast<std::size_t>(starts[seg + 1]) : n_pairs;
        const Encoded& pt = enc[pred_of[seg]];
        const Encoded& pl = enc[pred_lcs_of[seg]];
        for (std::size_t j = 0; j < k; ++j) {
            const TypeSpec& t = specs_[j];
            counts.clear();
            for (std::size_t p = lo; p < hi; ++p) {
                const Encoded& rt = enc[ref_of[p]];
                const Encoded& rl = enc[ref_lcs_of[p]];
                switch (t.kind) {
                    case KIND_N: counts.push_back(ngram_counts(ws, pt, rt, t.n)); break;
                    case KIND_S: counts.push_back(skip_counts(ws, pt, rt, t)); break;
                    case KIND_L:
                        counts.push_back({lcs_length(ws, rt.tokens, pt.tokens), static_cast<double>(pt.tokens.size()),
                                          static_cast<double>(rt.tokens.size())});
                        break;
                    case KIND_LSUM: counts.push_back(union_lcs_counts(ws, pt, rt, pl, rl, split)); break;
                    default: counts.push_back(weighted_counts(ws, pt, rt, pl, rl, s.weight)); break;
                }
            }
            double* prf = values.data() + (seg * k + j) * width;
            segment_scores(t, counts.data(), counts.size(), s, prf);
            if (grid_ > 0)
                for (int m = 0; m < 3; ++m) {
                    double high = std::nearbyint(prf[m] * grid_) / grid_;
                    prf[3 + m] = prf[m] - high;
                    prf[m] = high;
                }
        }
    }
    if (!rows) {
        py::array_t<double> result({n_seg, k, width});
        std::copy(values.begin(), values.end(), result.mutable_data());
        return std::move(result);
    }
    // one tuple per segment: for each of the `width` measures, a tuple over the types
    py::list out(n_seg);
    for (std::size_t seg = 0; seg < n_seg; ++seg) {
        py::tuple row(width);
        for (std::size_t m = 0; m < width; ++m) {
            py::tuple per_type(k);
            for (std::size_t j = 0; j < k; ++j) per_type[j] = py::float_(values[(seg * k + j) * width + m]);
            row[m] = std::move(per_type);
        }
        out[seg] = std::move(row);
    }
    return std::move(out);
}

std::string stem_word(int kind, const std::string& word) {
    U32 w;
    utf8_to_u32(word, w);
    U32 s = kind == STEM_PORTER ? nltk_porter_stem(w) : rouge155_porter_stem(w);
    std::string out;
    u32_to_utf8(s, out);
    return out;
}

// The tokens of one text as the kernel sees them (after stop words and stemming), sentence by sentence.
std::vector<std::vector<std::string>> encoder_tokens(RougeEncoder& encoder, const py::handle& item, bool sentences) {
    Vocabulary& vocab = encoder.vocab();
    vocab.trim();
    Encoded enc;
    encode_item(item, sentences, vocab, enc);
    std::vector<std::vector<std::string>> out;
    for (const auto& [b, e] : enc.sentences) {
        out.emplace_back();
        for (int32_t k = b; k < e; ++k) out.back().push_back(vocab.name(enc.tokens[k]));
    }
    return out;
}

void bind_rouge(py::module_& m) {
    py::class_<RougeEncoder>(m, "RougeEncoder")
        .def(py::init<int, std::unordered_map<std::string, std::string>, std::vector<std::string>, bool>(),
             py::arg("stemmer"), py::arg("exceptions"), py::arg("stopwords"), py::arg("check_ascii"))
        .def(
            "stem", [](RougeEncoder& e, const std::string& word) { return e.stems().stem(word); }, py::arg("word"),
            "The cached stem of a word (words of at most 3 characters are kept).")
        .def("tokens", &encoder_tokens, py::arg("item"), py::arg("sentences"),
             "The tokens of a text (a string, or a list of sentences of tokens), sentence by sentence.");
    py::class_<RougePlan>(m, "RougePlan")
        .def(py::init<const std::vector<std::tuple<int, int, int, bool>>&, bool, int, double, std::optional<double>,
                      double, bool, double>(),
             py::arg("types"), py::arg("perl"), py::arg("multi"), py::arg("beta"), py::arg("alpha"), py::arg("weight"),
             py::arg("sentences"), py::arg("grid"))
        .def(py::pickle([](const RougePlan& p) { return p.args(); },
                        [](const py::tuple& t) {
                            return RougePlan(t[0].cast<std::vector<std::tuple<int, int, int, bool>>>(), t[1].cast<bool>(),
                                             t[2].cast<int>(), t[3].cast<double>(), t[4].cast<std::optional<double>>(),
                                             t[5].cast<double>(), t[6].cast<bool>(), t[7].cast<double>());
                        }))
        .def("scores", &RougePlan::scores, py::arg("encoder"), py::arg("preds"), py::arg("refs"), py::arg("starts"),
             py::arg("lcs_preds"), py::arg("lcs_refs"), py::arg("rows"),
             "Per-segment scores of the pairs (preds[s], refs[starts[s] + i]): a (segments, types, 3 or 6) array, or "
             "with rows one tuple per segment holding, per measure, a tuple over the types.");
    m.def("stem", &stem_word, py::arg("kind"), py::arg("word"),
          "Stem one lowercase word with stemmer kind 1 (NLTK Porter) or 2/3 (ROUGE-1.5.5's Porter), uncached.");
    m.def(
        "round5", [](py::array_t<double, py::array::c_style | py::array::forcecast> x) {
            py::array_t<double> out(x.request().shape);
            const double* in = x.data();
            double* o = out.mutable_data();
            for (py::ssize_t i = 0; i < x.size(); ++i) o[i] = round5(in[i]);
            return out;
        },
        py::arg("x"), "sprintf('%7.5f', x) read back as a number, element-wise.");
}

}  // namespace nlgm
