// The two Porter stemmers of ROUGE, on Unicode code points.
//
// * nltk_porter_stem: NLTK 3.10's PorterStemmer() in its default NLTK_EXTENSIONS mode, the stemmer rouge-score's
//   use_stemmer=True uses. Every rule is restated in NLTK's order with NLTK's conditions (its irregular-form pool,
//   the "alli" recursion of step 2, the "logi" condition on word[:-3], the "*d" rule of step 1b).
// * rouge155_porter_stem: ROUGE-1.5.5.pl's own Porter stemmer (Martin Porter's Perl release 1 with Chin-Yew Lin's
//   2004 change to step 4). The script states its conditions as regular expressions over [aeiou]/[aeiouy]
//   classes; they are matched here by a small NFA that answers exactly the question the script asks (does a
//   match exist), in linear time.
//
// Words are std::u32string: NLTK's rules compare characters, so a letter outside ASCII is one consonant, as it is
// in Python. No library offers ROUGE-1.5.5's variant, and NLTK's costs a Python call per word and a heavy import,
// hence this restatement; tests/naive.py keeps the textbook versions they are checked against.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nlgm {

using U32 = std::u32string;
using U32View = std::u32string_view;

inline bool ends_with(const U32& w, U32View suffix) {
    return w.size() >= suffix.size() && U32View(w).substr(w.size() - suffix.size()) == suffix;
}

inline U32 drop(const U32& w, std::size_t k) { return w.substr(0, w.size() - k); }

// ================================================================================================ NLTK
namespace nltk {

inline bool is_vowel(char32_t c) { return c == U'a' || c == U'e' || c == U'i' || c == U'o' || c == U'u'; }

// PorterStemmer._is_consonant
inline bool is_consonant(const U32& w, std::size_t i) {
    if (is_vowel(w[i])) return false;
    if (w[i] == U'y') {
        bool negate = false;
        while (i > 0 && w[i] == U'y') {
            negate = !negate;
            --i;
        }
        return (!is_vowel(w[i])) != negate;
    }
    return true;
}

// PorterStemmer._consonant_flags
inline void consonant_flags(const U32& w, std::vector<char>& flags) {
    flags.resize(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
        char32_t c = w[i];
        if (is_vowel(c))
            flags[i] = 0;
        else if (c == U'y')
            flags[i] = i == 0 ? 1 : !flags[i - 1];
        else
            flags[i] = 1;
    }
}

// PorterStemmer._measure: the number of "vc" in the consonant/vowel sequence
inline int measure(const U32& s) {
    std::vector<char> f;
    consonant_flags(s, f);
    int m = 0;
    for (std::size_t i = 1; i < f.size(); ++i)
        if (!f[i - 1] && f[i]) ++m;
    return m;
}

inline bool contains_vowel(const U32& s) {
    std::vector<char> f;
    consonant_flags(s, f);
    for (char c : f)
        if (!c) return true;
    return false;
}

inline bool ends_double_consonant(const U32& w) {
    std::size_t n = w.size();
    return n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1);
}

inline bool ends_cvc(const U32& w) {
    std::size_t n = w.size();
    if (n >= 3 && is_consonant(w, n - 3) && !is_consonant(w, n - 2) && is_consonant(w, n - 1) && w[n - 1] != U'w' &&
        w[n - 1] != U'x' && w[n - 1] != U'y')
        return true;
    return n == 2 && !is_consonant(w, 0) && is_consonant(w, 1);
}

struct Rule {
    U32View suffix;
    U32View replacement;
};

// PorterStemmer._apply_rule_list: the first rule whose suffix matches decides (its condition may still fail).
template <class Cond>
U32 apply_rules(const U32& word, const Rule* rules, std::size_t n_rules, Cond cond) {
    for (std::size_t k = 0; k < n_rules; ++k) {
        const Rule& r = rules[k];
        if (r.suffix == U"*d" && ends_double_consonant(word)) {
            U32 stem = drop(word, 2);
            return cond(k, stem) ? stem + U32(r.replacement) : word;
        }
        if (ends_with(word, r.suffix)) {
            U32 stem = drop(word, r.suffix.size());
            return cond(k, stem) ? stem + U32(r.replacement) : word;
        }
    }
    return word;
}

inline U32 step1a(const U32& w) {
    if (ends_with(w, U"ies") && w.size() == 4) return drop(w, 3) + U"ie";
    static const Rule rules[] = {{U"sses", U"ss"}, {U"ies", U"i"}, {U"ss", U"ss"}, {U"s", U""}};
    return apply_rules(w, rules, 4, [](std::size_t, const U32&) { return true; });
}

inline U32 step1b(const U32& w) {
    if (ends_with(w, U"ied")) return w.size() == 4 ? drop(w, 3) + U"ie" : drop(w, 3) + U"i";
    if (ends_with(w, U"eed")) {
        U32 stem = drop(w, 3);
        return measure(stem) > 0 ? stem + U"ee" : w;
    }
    U32 inter;
    bool ok = false;
    for (U32View suffix : {U32View(U"ed"), U32View(U"ing")}) {
        if (ends_with(w, suffix)) {
            inter = drop(w, suffix.size());
            if (contains_vowel(inter)) {
                ok = true;
                break;
            }
        }
    }
    if (!ok) return w;
    char32_t last_buf[2] = {inter.back(), 0};
    char32_t last = inter.back();
    const Rule rules[] = {
        {U"at", U"ate"}, {U"bl", U"ble"}, {U"iz", U"ize"}, {U"*d", U32View(last_buf, 1)}, {U"", U"e"}};
    return apply_rules(inter, rules, 5, [last](std::size_t k, const U32& stem) {
        if (k == 3) return last != U'l' && last != U's' && last != U'z';
        if (k == 4) return measure(stem) == 1 && ends_cvc(stem);
        return true;
    });
}

inline U32 step1c(const U32& w) {
    static const Rule rules[] = {{U"y", U"i"}};
    return apply_rules(w, rules, 1, [](std::size_t, const U32& stem) {
        return stem.size() > 1 && is_consonant(stem, stem.size() - 1);
    });
}

inline U32 step2(const U32& w) {
    if (ends_with(w, U"alli") && measure(drop(w, 4)) > 0) return step2(drop(w, 4) + U"al");
    static const Rule rules[] = {
        {U"ational", U"ate"}, {U"tional", U"tion"}, {U"enci", U"ence"},  {U"anci", U"ance"},
        {U"izer", U"ize"},    {U"bli", U"ble"},     {U"alli", U"al"},    {U"entli", U"ent"},
        {U"eli", U"e"},       {U"ousli", U"ous"},   {U"ization", U"ize"}, {U"ation", U"ate"},
        {U"ator", U"ate"},    {U"alism", U"al"},    {U"iveness", U"ive"}, {U"fulness", U"ful"},
        {U"ousness", U"ous"}, {U"aliti", U"al"},    {U"iviti", U"ive"},  {U"biliti", U"ble"},
        {U"fulli", U"ful"},   {U"logi", U"log"},
    };
    constexpr std::size_t n = sizeof(rules) / sizeof(rules[0]);
    return apply_rules(w, rules, n, [&w](std::size_t k, const U32& stem) {
        if (k == n - 1) return w.size() >= 3 && measure(drop(w, 3)) > 0;  // NLTK tests word[:-3] for "logi"
        return measure(stem) > 0;
    });
}

inline U32 step3(const U32& w) {
    static const Rule rules[] = {{U"icate", U"ic"}, {U"ative", U""}, {U"alize", U"al"}, {U"iciti", U"ic"},
                                 {U"ical", U"ic"},  {U"ful", U""},   {U"ness", U""}};
    return apply_rules(w, rules, 7, [](std::size_t, const U32& stem) { return measure(stem) > 0; });
}

inline U32 step4(const U32& w) {
    static const Rule rules[] = {{U"al", U""},  {U"ance", U""}, {U"ence", U""}, {U"er", U""},   {U"ic", U""},
                                 {U"able", U""}, {U"ible", U""}, {U"ant", U""},  {U"ement", U""}, {U"ment", U""},
                                 {U"ent", U""},  {U"ion", U""},  {U"ou", U""},   {U"ism", U""},  {U"ate", U""},
                                 {U"iti", U""},  {U"ous", U""},  {U"ive", U""},  {U"ize", U""}};
    return apply_rules(w, rules, 19, [](std::size_t k, const U32& stem) {
        if (k == 11) return measure(stem) > 1 && (stem.back() == U's' || stem.back() == U't');
        return measure(stem) > 1;
    });
}

inline U32 step5a(const U32& w) {
    if (ends_with(w, U"e")) {
        U32 stem = drop(w, 1);
        int m = measure(stem);
        if (m > 1) return stem;
        if (m == 1 && !ends_cvc(stem)) return stem;
    }
    return w;
}

inline U32 step5b(const U32& w) {
    static const Rule rules[] = {{U"ll", U"l"}};
    return apply_rules(w, rules, 1, [&w](std::size_t, const U32&) { return measure(drop(w, 1)) > 1; });
}

inline bool irregular(const U32& w, U32& out) {
    static const std::pair<U32View, U32View> pool[] = {
        {U"sky", U"sky"},         {U"skies", U"sky"},     {U"dying", U"die"},       {U"lying", U"lie"},
        {U"tying", U"tie"},       {U"news", U"news"},     {U"innings", U"inning"},  {U"inning", U"inning"},
        {U"outings", U"outing"},  {U"outing", U"outing"}, {U"cannings", U"canning"}, {U"canning", U"canning"},
        {U"howe", U"howe"},       {U"proceed", U"proceed"}, {U"exceed", U"exceed"},  {U"succeed", U"succeed"},
    };
    for (const auto& [k, v] : pool)
        if (U32View(w) == k) {
            out = U32(v);
            return true;
        }
    return false;
}

}  // namespace nltk

// PorterStemmer().stem(word) for a lowercase word (rouge-score lowercases first; so does NLTK).
inline U32 nltk_porter_stem(const U32& word) {
    U32 out;
    if (nltk::irregular(word, out)) return out;
    if (word.size() <= 2) return word;
    U32 s = nltk::step1a(word);
    s = nltk::step1b(s);
    s = nltk::step1c(s);
    s = nltk::step2(s);
    s = nltk::step3(s);
    s = nltk::step4(s);
    s = nltk::step5a(s);
    return nltk::step5b(s);
}

// ================================================================================================ ROUGE-1.5.5
namespace r155 {

// character classes of the script's expressions
enum Cls : unsigned char { NOT_AEIOU, NOT_AEIOUY, AEIOUY, AEIOU, NOT_AEIOUWXY };

inline bool in_class(Cls cls, char32_t c) {
    bool v = c == U'a' || c == U'e' || c == U'i' || c == U'o' || c == U'u';
    switch (cls) {
        case NOT_AEIOU: return !v;
        case NOT_AEIOUY: return !v && c != U'y';
        case AEIOUY: return v || c == U'y';
        case AEIOU: return v;
        case NOT_AEIOUWXY: return !v && c != U'w' && c != U'x' && c != U'y';
    }
    return false;
}

struct Item {
    Cls cls;
    bool star;
};

// Does `items` (anchored at the start) match a prefix of w (full: all of w)? An NFA over item positions.
inline bool nfa_match(U32View w, const std::vector<Item>& items, bool full) {
    const std::size_t n = items.size();
    std::vector<char> cur(n + 1, 0), nxt(n + 1, 0);
    auto close = [&](std::vector<char>& s) {
        for (std::size_t i = 0; i < n; ++i)
            if (s[i] && items[i].star) s[i + 1] = 1;
    };
    cur[0] = 1;
    close(cur);
    if (!full && cur[n]) return true;
    for (char32_t c : w) {
        std::fill(nxt.begin(), nxt.end(), 0);
        bool any = false;
        for (std::size_t i = 0; i < n; ++i) {
            if (!cur[i] || !in_class(items[i].cls, c)) continue;
            if (items[i].star)
                nxt[i] = 1;
            else
                nxt[i + 1] = 1;
            any = true;
        }
        if (!any) return false;
        close(nxt);
        if (!full && nxt[n]) return true;
        cur.swap(nxt);
    }
    return cur[n] != 0;
}

// C = [^aeiou][^aeiouy]*, V = [aeiouy][aeiou]*
inline void push_c(std::vector<Item>& v) {
    v.push_back({NOT_AEIOU, false});
    v.push_back({NOT_AEIOUY, true});
}
inline void push_v(std::vector<Item>& v) {
    v.push_back({AEIOUY, false});
    v.push_back({AEIOU, true});
}

// the pattern "(C)?" + body, tried with and without the optional C
template <class Body>
bool optional_c(U32View w, bool full, Body body) {
    for (int with_c = 0; with_c < 2; ++with_c) {
        std::vector<Item> items;
        if (with_c) push_c(items);
        body(items);
        if (nfa_match(w, items, full)) return true;
    }
    return false;
}

inline bool mgr0(U32View w) {  // ^(C)?VC
    return optional_c(w, false, [](std::vector<Item>& v) {
        push_v(v);
        push_c(v);
    });
}

inline bool mgr1(U32View w) {  // ^(C)?VCVC
    return optional_c(w, false, [](std::vector<Item>& v) {
        push_v(v);
        push_c(v);
        push_v(v);
        push_c(v);
    });
}

inline bool meq1(U32View w) {  // ^(C)?VC(V)?$
    for (int with_v = 0; with_v < 2; ++with_v) {
        bool hit = optional_c(w, true, [with_v](std::vector<Item>& v) {
            push_v(v);
            push_c(v);
            if (with_v) push_v(v);
        });
        if (hit) return true;
    }
    return false;
}

inline bool vowel_in(U32View w) {  // ^(C)?[aeiouy]
    return optional_c(w, false, [](std::vector<Item>& v) { v.push_back({AEIOUY, false}); });
}

inline bool cvc(U32View w) {  // ^C[aeiouy][^aeiouwxy]$
    std::vector<Item> items;
    push_c(items);
    items.push_back({AEIOUY, false});
    items.push_back({NOT_AEIOUWXY, false});
    return nfa_match(w, items, true);
}

// the longest of `suffixes` that w ends with (the leftmost match of "(s1|s2|...)$"), or -1
template <std::size_t N>
int longest_suffix(const U32& w, const U32View (&suffixes)[N]) {
    int best = -1;
    for (std::size_t k = 0; k < N; ++k)
        if (ends_with(w, suffixes[k]) && (best < 0 || suffixes[k].size() > suffixes[best].size()))
            best = static_cast<int>(k);
    return best;
}

}  // namespace r155

// ROUGE-1.5.5.pl's `stem` of a lowercase word.
inline U32 rouge155_porter_stem(U32 w) {
    using namespace r155;
    if (w.size() < 3) return w;
    bool initial_y = w[0] == U'y';
    if (initial_y) w[0] = U'Y';  // an initial y is a consonant
    // step 1a: (ss|i)es$ -> \1, else ([^s])s$ -> \1
    if (ends_with(w, U"sses"))
        w = drop(w, 2);
    else if (ends_with(w, U"ies"))
        w = drop(w, 2);
    else if (w.size() >= 2 && w.back() == U's' && w[w.size() - 2] != U's')
        w = drop(w, 1);
    // step 1b
    if (ends_with(w, U"eed")) {
        if (mgr0(U32View(w).substr(0, w.size() - 3))) w = drop(w, 1);
    } else {
        std::size_t cut = ends_with(w, U"ed") ? 2 : ends_with(w, U"ing") ? 3 : 0;
        if (cut && vowel_in(U32View(w).substr(0, w.size() - cut))) {
            w = drop(w, cut);
            if (ends_with(w, U"at") || ends_with(w, U"bl") || ends_with(w, U"iz")) {
                w += U"e";
            } else if (w.size() >= 2 && w.back() == w[w.size() - 2] && w.back() != U'a' && w.back() != U'e' &&
                       w.back() != U'i' && w.back() != U'o' && w.back() != U'u' && w.back() != U'y' &&
                       w.back() != U'l' && w.back() != U's' && w.back() != U'z') {
                w = drop(w, 1);
            } else if (cvc(w)) {
                w += U"e";
            }
        }
    }
    // step 1c
    if (ends_with(w, U"y") && vowel_in(U32View(w).substr(0, w.size() - 1))) w.back() = U'i';
    // steps 2 and 3
    static const U32View s2[] = {U"ational", U"tional", U"enci",    U"anci",    U"izer",  U"bli",   U"alli",
                                 U"entli",   U"eli",    U"ousli",   U"ization", U"ation", U"ator",  U"alism",
                                 U"iveness", U"fulness", U"ousness", U"aliti",  U"iviti", U"biliti", U"logi"};
    static const U32View r2[] = {U"ate", U"tion", U"ence", U"ance", U"ize", U"ble", U"al", U"ent", U"e",  U"ous", U"ize",
                                 U"ate", U"ate",  U"al",   U"ive",  U"ful", U"ous", U"al", U"ive", U"ble", U"log"};
    int k = longest_suffix(w, s2);
    if (k >= 0 && mgr0(U32View(w).substr(0, w.size() - s2[k].size()))) w = drop(w, s2[k].size()) + U32(r2[k]);
    static const U32View s3[] = {U"icate", U"ative", U"alize", U"iciti", U"ical", U"ful", U"ness"};
    static const U32View r3[] = {U"ic", U"", U"al", U"ic", U"ic", U"", U""};
    k = longest_suffix(w, s3);
    if (k >= 0 && mgr0(U32View(w).substr(0, w.size() - s3[k].size()))) w = drop(w, s3[k].size()) + U32(r3[k]);
    // step 4, as changed by Chin-Yew Lin: -ement first, then -ment, then -ent or -(s|t)ion
    static const U32View s4[] = {U"al",  U"ance", U"ence", U"er",  U"ic",  U"able", U"ible", U"ant",
                                 U"ement", U"ou",  U"ism",  U"ate", U"iti", U"ous",  U"ive",  U"ize"};
    k = longest_suffix(w, s4);
    if (k >= 0 && mgr1(U32View(w).substr(0, w.size() - s4[k].size()))) w = drop(w, s4[k].size());
    if (ends_with(w, U"ment") && mgr1(U32View(w).substr(0, w.size() - 4))) w = drop(w, 4);
    if (ends_with(w, U"ent")) {
        if (mgr1(U32View(w).substr(0, w.size() - 3))) w = drop(w, 3);
    } else if (ends_with(w, U"sion") || ends_with(w, U"tion")) {
        U32 stem = drop(w, 3);
        if (mgr1(stem)) w = stem;
    }
    // step 5
    if (ends_with(w, U"e")) {
        U32View stem = U32View(w).substr(0, w.size() - 1);
        if (mgr1(stem) || (meq1(stem) && !cvc(stem))) w = drop(w, 1);
    }
    if (ends_with(w, U"ll") && mgr1(w)) w = drop(w, 1);
    if (initial_y) w[0] = U'y';
    return w;
}

}  // namespace nlgm
