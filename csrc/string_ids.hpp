// A growing table from strings to ids or values (see StringIds), shared by the ROUGE and SARI kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace nlgm {

// The hash of a token's bytes, 8 at a time (tokens are short: most take one or two rounds). Only equality decides
// in StringIds; the hash only places a token.
inline uint64_t token_hash(const char* p, std::size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xff51afd7ed558ccdull);
    while (n >= 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        h = (h ^ v) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
        p += 8;
        n -= 8;
    }
    uint64_t v = 0;
    std::memcpy(&v, p, n);
    h = (h ^ v) * 0x94d049bb133111ebull;
    return h ^ (h >> 29);
}

// String -> value, open addressing with the strings' bytes in one arena; it grows as strings come. ROUGE looks every
// raw token up here (std::unordered_map -- a node per entry, std::hash over the bytes, then a memcmp -- took a
// quarter of its time without stemming), SARI numbers its tokens with it. It probes one flat array, compares the
// stored hash first, and hashes 8 bytes at a time. (clip::DenseIds, the other id table, is sized once per call for
// a known number of keys and holds them by value.)
class StringIds {
   public:
    // The value of `raw`, or nullptr when it is not there.
    const int32_t* find(std::string_view raw, uint64_t h) const {
        if (slots_.empty()) return nullptr;
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = static_cast<std::size_t>(h) & mask;; i = (i + 1) & mask) {
            const Slot& s = slots_[i];
            if (s.len == kEmpty) return nullptr;
            if (s.hash == h && s.len == raw.size() && std::memcmp(arena_.data() + s.offset, raw.data(), raw.size()) == 0)
                return &s.value;
        }
    }
    void insert(std::string_view raw, uint64_t h, int32_t value) {  // raw is not there yet
        if (2 * (count_ + 1) > slots_.size()) grow();
        const std::size_t mask = slots_.size() - 1;
        std::size_t i = static_cast<std::size_t>(h) & mask;
        while (slots_[i].len != kEmpty) i = (i + 1) & mask;
        slots_[i] = {h, arena_.size(), static_cast<uint32_t>(raw.size()), value};
        arena_.append(raw);
        ++count_;
    }
    std::size_t size() const { return count_; }
    // The id of `s`, numbering new strings 1, 2, 3, ... in order of first appearance.
    uint32_t id(std::string_view s) {
        const uint64_t h = token_hash(s.data(), s.size());
        if (const int32_t* found = find(s, h)) return static_cast<uint32_t>(*found);
        insert(s, h, static_cast<int32_t>(count_ + 1));
        return static_cast<uint32_t>(count_);
    }
    void clear() {
        slots_.clear();
        arena_.clear();
        count_ = 0;
    }

   private:
    static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
    struct Slot {
        uint64_t hash;
        std::size_t offset;
        uint32_t len;
        int32_t value;
    };
    void grow() {
        std::vector<Slot> old;
        old.swap(slots_);
        slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{0, 0, kEmpty, 0});
        const std::size_t mask = slots_.size() - 1;
        for (const Slot& s : old) {
            if (s.len == kEmpty) continue;
            std::size_t i = static_cast<std::size_t>(s.hash) & mask;
            while (slots_[i].len != kEmpty) i = (i + 1) & mask;
            slots_[i] = s;
        }
    }
    std::vector<Slot> slots_;
    std::string arena_;
    std::size_t count_ = 0;
};

}  // namespace nlgm
