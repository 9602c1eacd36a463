// Python-facing pieces of the ROUGE kernel.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "rouge.hpp"

namespace py = pybind11;

namespace nlgm {

// One tokenizer configuration: stemmer (with its stem cache), stop words, and whether stems must stay [a-z0-9]+
// (rouge-score's rule). Built once per configuration and kept, so the stem cache lasts across calls.
class RougeEncoder {
   public:
    RougeEncoder(int stemmer, std::unordered_map<std::string, std::string> exceptions,
                 std::vector<std::string> stopwords, bool check_ascii);
    StemCache& stems() { return stems_; }
    const std::unordered_set<std::string>& stopwords() const { return stop_; }
    bool check_ascii() const { return check_; }

   private:
    StemCache stems_;
    std::unordered_set<std::string> stop_;
    bool check_;
};

void bind_rouge(py::module_& m);

}  // namespace nlgm
