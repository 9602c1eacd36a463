// Clipped n-gram matches of one hypothesis against its references, for every order up to a maximum: the counting
// core of BLEU, chrF and GLEU (ngrams.cpp's clipped_matches and bleu13a.cpp's bleu_13a).
//
// Exactness without limits on the vocabulary or the order: the n-grams of order k get dense ids order by order.
// Order 1's id is the token's; order k's is the id of the pair (id of the order k-1 n-gram at the same start, the
// token that extends it), looked up in a hash table of exact 64-bit keys. Two n-grams get the same id exactly
// when they are equal. Counting is then done in arrays indexed by id: one hash look-up per n-gram occurrence, no
// sorting.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace nlgm::clip {

// Dense ids of keys, in order of first appearance: an open-addressing table emptied slot by slot (no allocation
// once warm). ``Hash`` mixes a key into 64 bits; equal keys get equal ids, and only equality decides (the hash
// only places them). Used with exact 64-bit keys here and with token views in bleu13a.cpp.
template <class Key, class Hash>
class DenseIds {
   public:
    void reset(std::size_t max_keys) {
        for (uint32_t u : used_) slots_[u] = 0;
        used_.clear();
        keys_.clear();
        std::size_t want = 16;
        while (want < 2 * max_keys + 2) want <<= 1;
        if (want > slots_.size()) slots_.assign(want, 0);
    }
    uint32_t id(const Key& key) {
        const uint64_t h = Hash{}(key);
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = static_cast<std::size_t>(h) & mask;; i = (i + 1) & mask) {
            const uint32_t v = slots_[i];
            if (v == 0) {
                keys_.push_back(key);
                slots_[i] = static_cast<uint32_t>(keys_.size());
                used_.push_back(static_cast<uint32_t>(i));
                return static_cast<uint32_t>(keys_.size() - 1);
            }
            if (keys_[v - 1] == key) return v - 1;
        }
    }
    std::size_t size() const { return keys_.size(); }

   private:
    std::vector<uint32_t> slots_;  // 1 + the id of the key there, 0 when empty
    std::vector<uint32_t> used_;
    std::vector<Key> keys_;
};

// The hash of an exact 64-bit key (an n-gram's (prefix id, token) pair).
struct KeyHash {
    uint64_t operator()(uint64_t key) const {
        const uint64_t h = key * 0x9E3779B97F4A7C15ull;
        return h ^ (h >> 32);
    }
};

class Clipper {
   public:
    // seqs[0] is the hypothesis, seqs[1..m) its references (token ids, any 32-bit values). For each order
    // k = 1..orders, adds to out: with per_reference, out[(r - 1) * orders + k - 1] = the matches against
    // reference r alone (chrF, GLEU); else out[k - 1] = the matches when each n-gram counts at most as often as
    // the reference that holds it most often (BLEU's clipping).
    void run(const std::vector<uint32_t>* const* seqs, std::size_t m, int orders, bool per_reference, int64_t* out) {
        std::size_t total = 0;
        for (std::size_t q = 0; q < m; ++q) total += seqs[q]->size();
        if (cur_.size() < m) cur_.resize(m);
        ids_.reset(total);
        for (std::size_t q = 0; q < m; ++q) {
            const auto& t = *seqs[q];
            auto& c = cur_[q];
            c.resize(t.size());
            for (std::size_t i = 0; i < t.size(); ++i) c[i] = ids_.id(t[i]);
        }
        for (int k = 1; k <= orders; ++k) {
            if (k > 1) {
                ids_.reset(total);
                for (std::size_t q = 0; q < m; ++q) {
                    const auto& t = *seqs[q];
                    auto& c = cur_[q];
                    const std::size_t len = t.size() >= static_cast<std::size_t>(k) ? t.size() - k + 1 : 0;
                    for (std::size_t i = 0; i < len; ++i)
                        c[i] = ids_.id((static_cast<uint64_t>(c[i]) << 32) | t[i + k - 1]);
                    c.resize(len);
                }
            }
            if (cur_[0].empty()) return;  // no hypothesis n-gram of this order, nor of higher ones
            const std::size_t d = ids_.size();
            hyp_.assign(d, 0);
            ref_.assign(d, 0);
            if (!per_reference) best_.assign(d, 0);
            hyp_seen_.clear();
            for (uint32_t id : cur_[0])
                if (hyp_[id]++ == 0) hyp_seen_.push_back(id);
            for (std::size_t q = 1; q < m; ++q) {
                seen_.clear();
                for (uint32_t id : cur_[q])
                    if (ref_[id]++ == 0) seen_.push_back(id);
                if (per_reference) {
                    int64_t matches = 0;
                    for (uint32_t id : seen_) matches += std::min(hyp_[id], ref_[id]);
                    out[(q - 1) * static_cast<std::size_t>(orders) + static_cast<std::size_t>(k - 1)] += matches;
                } else {
                    for (uint32_t id : seen_) best_[id] = std::max(best_[id], ref_[id]);
                }
                for (uint32_t id : seen_) ref_[id] = 0;
            }
            if (!per_reference) {
                int64_t matches = 0;
                for (uint32_t id : hyp_seen_) matches += std::min(hyp_[id], best_[id]);
                out[k - 1] += matches;
            }
        }
    }

   private:
    DenseIds<uint64_t, KeyHash> ids_;
    std::vector<std::vector<uint32_t>> cur_;  // per sequence: the ids of its n-grams of the current order
    std::vector<int64_t> hyp_, ref_, best_;
    std::vector<uint32_t> hyp_seen_, seen_;
};

}  // namespace nlgm::clip
