// TF-IDF cosine similarity of short texts; see core/text_similarity.hpp.
#include "core/text_similarity.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace accel {

namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

const std::set<std::string, std::less<>>& stop_words() {
  static const std::set<std::string, std::less<>> words{
      "the", "an",   "of",   "to",   "in",   "is", "for", "on",  "and", "or", "at",   "by",  "be",
      "it",  "this", "that", "with", "from", "as", "are", "was", "not", "no", "file", "line"};
  return words;
}

}  // namespace

std::vector<std::string> similarity_words(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_word_char(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && is_word_char(text[j])) ++j;
    std::string_view run = text.substr(i, j - i);
    i = j;
    while (!run.empty() && run.front() == '_') run.remove_prefix(1);
    while (!run.empty() && run.back() == '_') run.remove_suffix(1);
    if (run.size() < 2 || run.size() > 64) continue;
    bool letter = false;
    for (const char c : run) letter = letter || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!letter) continue;
    // An address or hash (0x7f3a9c..., a long hex run) says nothing about the message.
    if (run.size() > 12 && (run.substr(0, 2) == "0x" || run.substr(0, 2) == "0X")) continue;
    std::string word;
    word.reserve(run.size());
    bool in_digits = false;
    for (const char c : run) {
      if (c >= '0' && c <= '9') {
        if (!in_digits) word.push_back('#');
        in_digits = true;
        continue;
      }
      in_digits = false;
      word.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    }
    if (stop_words().count(word)) continue;
    out.push_back(std::move(word));
  }
  return out;
}

SimilarityIndex::Vector SimilarityIndex::vectorise(const std::vector<std::string>& words) {
  std::map<std::size_t, int> tf;
  for (const auto& w : words) {
    ++tf[word_ids_.emplace(w, word_ids_.size()).first->second];
  }
  Vector v;
  v.reserve(tf.size());
  for (const auto& [id, n] : tf) v.emplace_back(id, 1.0 + std::log(static_cast<double>(n)));
  return v;
}

void SimilarityIndex::add(std::size_t label, std::string_view text) {
  if (finished_) return;
  labels_.push_back(label);
  pending_.push_back(similarity_words(text));
}

void SimilarityIndex::finish() {
  if (finished_) return;
  finished_ = true;
  std::vector<Vector> raw;
  raw.reserve(pending_.size());
  for (const auto& words : pending_) raw.push_back(vectorise(words));
  pending_.clear();
  df_.assign(word_ids_.size(), 0);
  for (const auto& v : raw) {
    for (const auto& [id, w] : v) ++df_[id];
  }
  const double n = static_cast<double>(raw.size());
  idf_.resize(df_.size());
  for (std::size_t id = 0; id < df_.size(); ++id) {
    idf_[id] = std::log((n + 1) / (static_cast<double>(df_[id]) + 1)) + 1;
  }
  postings_.assign(word_ids_.size(), {});
  docs_.clear();
  for (std::size_t d = 0; d < raw.size(); ++d) {
    Vector v = std::move(raw[d]);
    double norm = 0;
    for (auto& [id, w] : v) {
      w *= idf_[id];
      norm += w * w;
    }
    norm = std::sqrt(norm);
    for (auto& [id, w] : v) {
      if (norm > 0) w /= norm;
      postings_[id].push_back(d);
    }
    docs_.push_back(std::move(v));
  }
}

std::vector<SimilarityIndex::Hit> SimilarityIndex::nearest(std::string_view text, double min_similarity,
                                                           std::size_t limit) const {
  std::vector<Hit> out;
  if (!finished_ || docs_.empty() || limit == 0) return out;
  // Query vector: the same weights, with the documents' IDF (unknown words dropped).
  std::map<std::size_t, int> tf;
  std::map<std::string, int> unknown_tf;  // words no document has
  for (auto& w : similarity_words(text)) {
    const auto it = word_ids_.find(w);
    if (it != word_ids_.end()) {
      ++tf[it->second];
    } else {
      ++unknown_tf[std::move(w)];
    }
  }
  if (tf.empty()) return out;
  std::vector<std::pair<std::size_t, double>> q;
  double norm = 0;
  // A word no document has still makes the query longer (with the IDF of a
  // word of document frequency 0), so a line whose distinguishing word is
  // unknown ("No module named 'llama_cpp'") is not scored on its shared words alone.
  const double unknown_idf = std::log(static_cast<double>(docs_.size()) + 1) + 1;
  for (const auto& [w, n] : unknown_tf) {
    const double weight = (1.0 + std::log(static_cast<double>(n))) * unknown_idf;
    norm += weight * weight;
  }
  for (const auto& [id, n] : tf) {
    const double w = (1.0 + std::log(static_cast<double>(n))) * idf_[id];
    q.emplace_back(id, w);
    norm += w * w;
  }
  norm = std::sqrt(norm);
  // Accumulate dot products over the documents that share a word with the query.
  std::unordered_map<std::size_t, double> dot;
  for (const auto& [id, w] : q) {
    for (const std::size_t d : postings_[id]) {
      const auto& v = docs_[d];
      const auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(id, -1.0));
      if (it != v.end() && it->first == id) dot[d] += it->second * w / norm;
    }
  }
  std::map<std::size_t, Hit> best;  // per label
  for (const auto& [d, s] : dot) {
    if (s + 1e-12 < min_similarity) continue;
    auto& h = best[labels_[d]];
    if (s > h.similarity || (s == h.similarity && d < h.document)) h = Hit{labels_[d], std::min(s, 1.0), d};
  }
  for (const auto& [label, h] : best) out.push_back(h);
  std::sort(out.begin(), out.end(), [](const Hit& a, const Hit& b) {
    if (a.similarity != b.similarity) return a.similarity > b.similarity;
    return a.label < b.label;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace accel
