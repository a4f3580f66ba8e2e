// Word-level similarity of short texts (log lines against known messages):
// TF-IDF weighted bag of words compared by cosine similarity, the classic
// vector-space retrieval model (Salton & Buckley, "Term-weighting approaches
// in automatic text retrieval", 1988). Used by `explain` to name the closest
// known messages when no kb signature matched a log; it never decides a cause.
//
// Words: maximal runs of ASCII letters, digits and '_', lower-cased, with at
// least one letter and two characters; runs of digits inside a word become
// '#' ("sm_120" and "sm_86" are both "sm_#", "gfx1032" is "gfx#"), so version
// numbers and sizes do not decide; common English stop words and long hex
// addresses are dropped.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace accel {

/// The words of `text` as described above, in order (repeats kept).
std::vector<std::string> similarity_words(std::string_view text);

/// A set of labelled documents (a label per document; several documents may
/// share a label) searched by cosine similarity of TF-IDF vectors.
/// Weights: term frequency 1 + ln(tf); inverse document frequency
/// ln((N + 1) / (df + 1)) + 1 over the N documents (smoothed, as scikit-learn's
/// TfidfVectorizer). Vectors are L2-normalised, so a similarity is in [0, 1];
/// a query's words that no document has count in its length with the IDF of
/// document frequency 0 (they lower every similarity, as a word the closest
/// document lacks should).
class SimilarityIndex {
 public:
  /// Adds a document with its label (an index the caller owns). Call before finish().
  void add(std::size_t label, std::string_view text);
  /// Computes the weights; add() must not be called after.
  void finish();

  struct Hit {
    std::size_t label = 0;
    double similarity = 0;     ///< cosine similarity, 0..1
    std::size_t document = 0;  ///< index of the closest document of this label (add() order)
  };
  /// The best document of each label whose similarity to `text` is at least
  /// `min_similarity`, most similar first, at most `limit` labels.
  std::vector<Hit> nearest(std::string_view text, double min_similarity, std::size_t limit) const;

  std::size_t documents() const { return docs_.size(); }

 private:
  using Vector = std::vector<std::pair<std::size_t, double>>;  // (word id, weight), sorted by word id
  /// A document's term frequencies (1 + ln tf), adding its new words to the vocabulary.
  Vector vectorise(const std::vector<std::string>& words);

  std::unordered_map<std::string, std::size_t> word_ids_;
  std::vector<double> idf_;
  std::vector<std::size_t> df_;
  std::vector<std::vector<std::string>> pending_;  // words of each document until finish()
  std::vector<std::size_t> labels_;
  std::vector<Vector> docs_;
  std::vector<std::vector<std::size_t>> postings_;  // word id -> documents containing it
  bool finished_ = false;
};

}  // namespace accel
