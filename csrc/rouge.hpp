// The ROUGE kernel: texts in, per-segment precision, recall and F of every requested type out.
//
// Each distinct text is tokenized once (ASCII rules in C++, or tokens handed over from Python), every token is
// stemmed through a cache and given a dense id; then each (prediction, reference) pair is scored type by type:
//
// * n-grams and skip bigrams: clipped overlaps of the two multisets (counted in a hash table);
// * ROUGE-L: the LCS length (bit-parallel, Hyyro's recurrence over machine words);
// * ROUGE-Lsum (and ROUGE-1.5.5's summary-level ROUGE-L): the union over the prediction's sentences of the
//   canonical LCS of each reference sentence -- the LCS that rouge-score's _backtrack_norec and ROUGE-1.5.5's
//   markLCS read out of the table (diagonal when the tokens are equal, else up unless left is strictly better),
//   obtained by walking the bit-parallel columns back -- clipped by the unigram counts;
// * ROUGE-W: ROUGE-1.5.5's weighted LCS table, in its float arithmetic, with its tie-breaking and its clipping.
//
// Then each segment keeps its best reference, pools its references or takes the best P and R apart, and the counts become P, R and F with
// rouge-score's or ROUGE-1.5.5's arithmetic. rapidfuzz has the LCS length but not the canonical LCS that the union
// needs; the columns computed for the union give the length at no cost, so both come from here.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ngram_clip.hpp"
#include "stemmers.hpp"
#include "string_ids.hpp"

namespace nlgm {

enum Stemmer { STEM_NONE = 0, STEM_PORTER = 1, STEM_R155 = 2, STEM_R155_PORTER = 3 };

inline void utf8_to_u32(const std::string& s, U32& out) {
    out.clear();
    std::size_t i = 0, n = s.size();
    while (i < n) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        char32_t cp;
        int len;
        if (c < 0x80) {
            cp = c;
            len = 1;
        } else if ((c >> 5) == 6) {
            cp = c & 0x1F;
            len = 2;
        } else if ((c >> 4) == 14) {
            cp = c & 0x0F;
            len = 3;
        } else {
            cp = c & 0x07;
            len = 4;
        }
        for (int k = 1; k < len && i + k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        out.push_back(cp);
        i += len;
    }
}

inline void u32_to_utf8(const U32& s, std::string& out) {
    out.clear();
    for (char32_t cp : s) {
        if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }
}

inline std::size_t codepoints(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

inline bool ascii_alnum_token(const std::string& s) {
    if (s.empty()) return false;
    for (unsigned char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
    return true;
}

// Stems a word (UTF-8) with one of the stemmers; tokens of at most 3 characters are kept as they are, as both
// reference tools do. Stems are cached (bounded), so a corpus pays for each distinct word once.
class StemCache {
   public:
    StemCache(int kind, std::unordered_map<std::string, std::string> exceptions)
        : kind_(kind), exceptions_(std::move(exceptions)) {}

    const std::string& stem(const std::string& word) {
        auto it = cache_.find(word);
        if (it != cache_.end()) return it->second;
        if (cache_.size() >= kLimit) cache_.clear();
        std::string out;
        if (kind_ == STEM_NONE || codepoints(word) <= 3) {
            out = word;
        } else {
            auto ex = kind_ == STEM_R155 ? exceptions_.find(word) : exceptions_.end();
            if (ex != exceptions_.end()) {
                out = ex->second;
            } else {
                U32 w;
                utf8_to_u32(word, w);
                U32 s = kind_ == STEM_PORTER ? nltk_porter_stem(w) : rouge155_porter_stem(w);
                u32_to_utf8(s, out);
            }
        }
        return cache_.emplace(word, std::move(out)).first->second;
    }

    int kind() const { return kind_; }

   private:
    static constexpr std::size_t kLimit = 1 << 20;
    int kind_;
    std::unordered_map<std::string, std::string> exceptions_;
    std::unordered_map<std::string, std::string> cache_;
};

// A text as token ids, with its non-empty sentences as [begin, end) offsets into the tokens.
struct Encoded {
    std::vector<int32_t> tokens;
    std::vector<std::pair<int32_t, int32_t>> sentences;
};

constexpr int32_t kDropped = -1;

// Raw token -> id of its stem (or kDropped), kept across calls: a corpus, or a stream of one-pair calls, looks
// each distinct word up once. Ids are dense; `names` holds the stem of every id. Emptied (between calls) when it
// grows past a bound.
class Vocabulary {
   public:
    Vocabulary(StemCache& stems, std::vector<std::string> stopwords, bool check_ascii)
        : stems_(stems), stop_(stopwords.begin(), stopwords.end()), check_(check_ascii) {}

    int32_t id(std::string_view raw) {
        const uint64_t h = token_hash(raw.data(), raw.size());
        if (const int32_t* found = raw_.find(raw, h)) return *found;
        std::string key(raw);
        int32_t value = kDropped;
        if (!stop_.count(key)) {
            const std::string& word = stems_.stem(key);
            if (!word.empty() && (!check_ || ascii_alnum_token(word))) {
                auto [at, fresh] = ids_.emplace(word, static_cast<int32_t>(names_.size()));
                value = at->second;
                if (fresh) names_.push_back(word);
            }
        }
        raw_.insert(raw, h, value);
        return value;
    }

    int32_t size() const { return static_cast<int32_t>(names_.size()); }
    const std::string& name(int32_t id) const { return names_[id]; }
    void trim() {
        if (raw_.size() > kLimit) {
            raw_.clear();
            ids_.clear();
            names_.clear();
        }
    }

   private:
    static constexpr std::size_t kLimit = 1 << 21;
    StemCache& stems_;
    std::unordered_set<std::string> stop_;
    bool check_;
    StringIds raw_;
    std::unordered_map<std::string, int32_t> ids_;
    std::vector<std::string> names_;
};

// rouge-score's tokenizer after lowercasing (and ROUGE-1.5.5's on UTF-8 bytes): runs of [a-z0-9], ASCII capitals
// lowercased; every other byte separates tokens; a newline also ends a sentence when `sentences`.
inline void encode_ascii(const char* data, std::size_t size, bool sentences, Vocabulary& vocab, Encoded& out) {
    char buf[64];
    std::string big;
    std::size_t len = 0;
    int32_t sent_begin = 0;
    auto flush = [&]() {
        if (len) {
            std::string_view tok = len <= sizeof(buf) ? std::string_view(buf, len) : std::string_view(big);
            int32_t id = vocab.id(tok);
            if (id != kDropped) out.tokens.push_back(id);
            len = 0;
            big.clear();
        }
    };
    auto push = [&](char c) {
        if (len < sizeof(buf)) {
            buf[len] = c;
        } else {
            if (len == sizeof(buf)) big.assign(buf, len);
            big.push_back(c);
        }
        ++len;
    };
    auto end_sentence = [&]() {
        int32_t end = static_cast<int32_t>(out.tokens.size());
        if (end > sent_begin) out.sentences.emplace_back(sent_begin, end);
        sent_begin = end;
    };
    for (std::size_t i = 0; i < size; ++i) {
        unsigned char c = static_cast<unsigned char>(data[i]);
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            push(static_cast<char>(c));
        } else if (c >= 'A' && c <= 'Z') {
            push(static_cast<char>(c + 32));
        } else {
            flush();
            if (c == '\n' && sentences) end_sentence();
        }
    }
    flush();
    end_sentence();
}

// ------------------------------------------------------------------------------------------------ counting
// The clipped overlap of two multisets of 64-bit keys: the sum over keys of min(count in a, count in b). Each key
// gets a dense id (clip::DenseIds, the n-gram table of BLEU and chrF), a's keys are counted by id, and each key of b
// takes one of its key's count while any is left. Sorting both sides and merging, as before, took twice as long on
// ROUGE-2.
class Overlap {
   public:
    int64_t count(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
        if (a.empty() || b.empty()) return 0;
        ids_.reset(a.size() + b.size());
        left_.assign(a.size() + b.size(), 0);
        for (uint64_t k : a) ++left_[ids_.id(k)];
        int64_t hits = 0;
        for (uint64_t k : b) {
            int64_t& left = left_[ids_.id(k)];
            if (left > 0) {
                --left;
                ++hits;
            }
        }
        return hits;
    }

   private:
    clip::DenseIds<uint64_t, clip::KeyHash> ids_;
    std::vector<int64_t> left_;
};

// Exact ids of the n-grams of two token sequences: order 1 is the token, order k the rank of (order k-1 id, next
// token) among the pairs of both sequences. Returns the ids of each side for order n.
inline void ngram_keys(const int32_t* a, std::size_t na, const int32_t* b, std::size_t nb, int n,
                       std::vector<uint64_t>& ka, std::vector<uint64_t>& kb) {
    ka.assign(a, a + na);
    kb.assign(b, b + nb);
    for (int k = 2; k <= n; ++k) {
        std::size_t ma = na >= static_cast<std::size_t>(k) ? na - k + 1 : 0;
        std::size_t mb = nb >= static_cast<std::size_t>(k) ? nb - k + 1 : 0;
        std::vector<uint64_t> pa(ma), pb(mb);
        for (std::size_t i = 0; i < ma; ++i) pa[i] = (ka[i] << 32) | static_cast<uint32_t>(a[i + k - 1]);
        for (std::size_t i = 0; i < mb; ++i) pb[i] = (kb[i] << 32) | static_cast<uint32_t>(b[i + k - 1]);
        if (k == n) {
            ka.swap(pa);
            kb.swap(pb);
            return;
        }
        // re-rank so that the ids fit 32 bits again
        std::vector<uint64_t> all(pa);
        all.insert(all.end(), pb.begin(), pb.end());
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        ka.resize(ma);
        kb.resize(mb);
        for (std::size_t i = 0; i < ma; ++i) ka[i] = std::lower_bound(all.begin(), all.end(), pa[i]) - all.begin();
        for (std::size_t i = 0; i < mb; ++i) kb[i] = std::lower_bound(all.begin(), all.end(), pb[i]) - all.begin();
    }
    if (n == 1) return;
}

// ROUGE-1.5.5's createSkipBigram: (t[i], t[j]) for i < j <= i + skip + 1 (any j when skip < 0), plus with
// `unigrams` every token but the last.
inline void skip_items(const int32_t* t, std::size_t n, int skip, bool unigrams, std::vector<uint64_t>& out) {
    out.clear();
    if (unigrams)
        for (std::size_t i = 0; i + 1 < n; ++i) out.push_back(static_cast<uint32_t>(t[i]));
    std::size_t reach = n ? n - 1 : 0;
    if (skip >= 0) reach = std::min<std::size_t>(reach, static_cast<std::size_t>(skip) + 1);
    for (std::size_t d = 1; d <= reach; ++d)
        for (std::size_t i = 0; i + d < n; ++i)
            out.push_back((static_cast<uint64_t>(t[i]) + 1) << 32 | static_cast<uint32_t>(t[i + d]));
}

// ------------------------------------------------------------------------------------------------ LCS
// Match masks of a reference sequence: for every position of the candidate, the bit set of the reference
// positions holding the same token (`words` 64-bit words per column). `slot` maps token ids to a mask row and is
// left as it was found (all -1).
class Masks {
   public:
    void build(const int32_t* ref, std::size_t m, std::vector<int32_t>& slot) {
        words = (m + 63) / 64;
        used.clear();
        rows.clear();
        for (std::size_t x = 0; x < m; ++x) {
            int32_t& s = slot[ref[x]];
            if (s < 0) {
                s = static_cast<int32_t>(used.size());
                used.push_back(ref[x]);
                rows.resize(rows.size() + words, 0);
            }
            rows[s * words + x / 64] |= uint64_t(1) << (x % 64);
        }
    }
    void release(std::vector<int32_t>& slot) {
        for (int32_t t : used) slot[t] = -1;
    }
    const uint64_t* row(int32_t token, const std::vector<int32_t>& slot) const {
        int32_t s = slot[token];
        return s < 0 ? nullptr : rows.data() + static_cast<std::size_t>(s) * words;
    }
    std::size_t words = 0;

   private:
    std::vector<int32_t> used;
    std::vector<uint64_t> rows;
};

// Runs the bit-parallel recurrence of the reference (masks) against the candidate `can`; when `columns` is given,
// stores ~V after each candidate token (the rows where the LCS table's column grows). Returns the LCS length.
inline int64_t lcs_run(const Masks& masks, const std::vector<int32_t>& slot, std::size_t m, const int32_t* can,
                       std::size_t n, std::vector<uint64_t>* columns) {
    const std::size_t W = masks.words;
    if (m == 0 || n == 0) return 0;
    std::vector<uint64_t> v(W, ~uint64_t(0));
    const uint64_t top = (m % 64) ? ((uint64_t(1) << (m % 64)) - 1) : ~uint64_t(0);
    v[W - 1] = top;
    if (columns) columns->assign((n + 1) * W, 0);
    for (std::size_t j = 0; j < n; ++j) {
        const uint64_t* mj = masks.row(can[j], slot);
        if (mj) {
            uint64_t carry = 0;
            for (std::size_t w = 0; w < W; ++w) {
                uint64_t vw = v[w];
                uint64_t u = vw & mj[w];
                uint64_t sum = vw + u;
                uint64_t c1 = sum < vw;
                uint64_t sum2 = sum + carry;
                uint64_t c2 = sum2 < sum;
                carry = c1 | c2;
                v[w] = sum2 | (vw & ~mj[w]);
            }
            v[W - 1] &= top;
        }
        if (columns)
            for (std::size_t w = 0; w < W; ++w) (*columns)[(j + 1) * W + w] = ~v[w] & (w == W - 1 ? top : ~uint64_t(0));
    }
    int64_t zeros = 0;
    for (std::size_t w = 0; w < W; ++w) zeros += std::popcount(static_cast<uint64_t>(~v[w] & (w == W - 1 ? top : ~uint64_t(0))));
    return zeros;
}

// highest set bit of bits[0..W) restricted to positions < limit, or -1
inline int64_t high_bit_below(const uint64_t* bits, std::size_t W, int64_t limit) {
    if (limit <= 0) return -1;
    int64_t w = (limit - 1) / 64;
    if (w >= static_cast<int64_t>(W)) w = static_cast<int64_t>(W) - 1;
    for (; w >= 0; --w) {
        uint64_t x = bits[w];
        int64_t cut = limit - w * 64;
        if (cut < 64) x &= (uint64_t(1) << cut) - 1;
        if (x) return w * 64 + 63 - std::countl_zero(x);
    }
    return -1;
}

// Marks (in `marked`, over the reference) the positions of the canonical LCS of ref and can.
inline void canonical_lcs_marks(const Masks& masks, const std::vector<int32_t>& slot, std::size_t m,
                                const int32_t* can, std::size_t n, std::vector<char>& marked,
                                std::vector<uint64_t>& columns) {
    if (m == 0 || n == 0) return;
    lcs_run(masks, slot, m, can, n, &columns);
    const std::size_t W = masks.words;
    int64_t i = static_cast<int64_t>(m);
    for (std::size_t j = n; j >= 1; --j) {
        int64_t hd = high_bit_below(columns.data() + j * W, W, i);
        const uint64_t* mj = masks.row(can[j - 1], slot);
        int64_t hc = mj ? high_bit_below(mj, W, i) : -1;
        if (hc >= 0 && hd <= hc) {
            marked[hc] = 1;
            i = hc;
            continue;
        }
        i = hd + 1;
        if (i == 0) break;
    }
}

// ROUGE-1.5.5's wlcs_inner + markLCS: marks the reference positions of the weighted LCS (float64, as Perl).
inline void weighted_lcs_marks(const int32_t* ref, std::size_t m, const int32_t* can, std::size_t n, double weight,
                               std::vector<char>& marked) {
    if (m == 0 || n == 0) return;
    const std::size_t cols = n + 1;
    std::vector<double> c((m + 1) * cols, 0.0);
    std::vector<int64_t> run((m + 1) * cols, 0);
    std::vector<char> move((m + 1) * cols, 0);  // 1 diagonal, 2 up, 3 left
    std::vector<double> power(std::min(m, n) + 2);
    for (std::size_t k = 0; k < power.size(); ++k) power[k] = std::pow(static_cast<double>(k), weight);
    for (std::size_t i = 1; i <= m; ++i) {
        for (std::size_t j = 1; j <= n; ++j) {
            std::size_t at = i * cols + j;
            if (ref[i - 1] == can[j - 1]) {
                int64_t k = run[(i - 1) * cols + j - 1];
                c[at] = (c[(i - 1) * cols + j - 1] + power[k + 1]) - power[k];
                run[at] = k + 1;
                move[at] = 1;
            } else {
                double up = c[(i - 1) * cols + j], left = c[i * cols + j - 1];
                bool go_up = up >= left;
                c[at] = go_up ? up : left;
                run[at] = 0;
                move[at] = go_up ? 2 : 3;
            }
        }
    }
    std::size_t i = m, j = n;
    while (i > 0 && j > 0) {
        char mv = move[i * cols + j];
        if (mv == 1) {
            marked[i - 1] = 1;
            --i;
            --j;
        } else if (mv == 2) {
            --i;
        } else {
            --j;
        }
    }
}

// ------------------------------------------------------------------------------------------------ arithmetic
// sprintf("%7.5f", x) read back: the double nearest to x rounded to five decimals, ties decided by x's exact
// binary value as C's printf does.
inline double round5(double x) {
    double scaled = x * 1e5;
    double fl = std::floor(scaled);
    if (std::fabs(scaled - fl - 0.5) >= 1e-6) return std::nearbyint(scaled) / 1e5;
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.5f", x);
    return std::strtod(buf, nullptr);
}

inline double divide(double num, double den) { return den != 0 ? num / den : 0.0; }

inline double fmeasure(double p, double r, double beta, double alpha, bool has_alpha) {
    if (has_alpha) {
        double den = (1 - alpha) * p + alpha * r;
        return den > 0 ? p * r / den : 0.0;
    }
    double b2 = beta * beta;
    double den = b2 * p + r;
    return den > 0 ? (1 + b2) * p * r / den : 0.0;
}

enum Kind { KIND_N = 0, KIND_L = 1, KIND_LSUM = 2, KIND_W = 3, KIND_S = 4 };
enum Multi { MULTI_AVERAGE = 0, MULTI_BEST = 1, MULTI_MAX_PR = 2 };

struct TypeSpec {
    int kind;
    int n;
    int skip;  // -1: any distance
    bool unigrams;
};

struct Settings {
    bool perl;        // ROUGE-1.5.5's arithmetic
    int multi;        // multi_ref: 0 "average", 1 "best", 2 "max-pr"
    double beta;
    double alpha;
    bool has_alpha;
    double weight;
    bool split;       // separate n-gram and LCS texts (length limits)
};

struct PairCounts {
    double hits, pred_total, ref_total;
};

}  // namespace nlgm
