// Python-facing pieces of the ROUGE kernel.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <tuple>
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
                 std::vector<std::string> stopwords, bool check_ascii)
        : stems_(stemmer, std::move(exceptions)), vocab_(stems_, std::move(stopwords), check_ascii) {}
    StemCache& stems() { return stems_; }
    Vocabulary& vocab() { return vocab_; }

   private:
    StemCache stems_;
    Vocabulary vocab_;
};

// What a configuration asks of the kernel: the types, whose arithmetic, how references combine, sentences, and
// the grid of the exact hi/lo split of the values. Built once per configuration.
class RougePlan {
   public:
    RougePlan(const std::vector<std::tuple<int, int, int, bool>>& types, bool perl, int multi, double beta,
              std::optional<double> alpha, double weight, bool sentences, double grid);
    py::object scores(RougeEncoder& encoder, const py::list& preds, const py::list& refs,
                      const std::vector<int64_t>& starts, const py::object& lcs_preds, const py::object& lcs_refs,
                      bool rows) const;
    // the constructor's arguments (for pickling)
    py::tuple args() const;

   private:
    std::vector<std::tuple<int, int, int, bool>> types_;
    std::optional<double> alpha_;
    std::vector<TypeSpec> specs_;
    Settings settings_;
    bool sentences_;
    double grid_;
};

void bind_rouge(py::module_& m);

}  // namespace nlgm
