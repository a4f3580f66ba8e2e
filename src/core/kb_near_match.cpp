// The kb entries whose known messages (their examples) read like the error
// lines of a log that no signature matched: leads for the user to check, never
// a recognised cause. See NearMatch in core/kb.hpp.
#include <map>

#include "core/kb_detail.hpp"

namespace accel {
namespace kb_detail {

std::vector<NearMatch> near_matches(const KbData& kb, const std::vector<KeyLine>& key_lines,
                                    std::size_t limit) {
  std::map<std::size_t, NearMatch> best;  // per entry
  for (const KeyLine& line : key_lines) {
    for (const auto& hit : kb.example_index.nearest(line.text, kNearMatchMinSimilarity, limit)) {
      const std::size_t entry = hit.label;
      NearMatch& m = best[entry];
      if (hit.similarity <= m.similarity) continue;
      const ErrorEntry& e = kb.errors[entry];
      const MachineFacts none;
      const std::map<std::string, std::string> no_captures;
      const EvalContext c{kb, none, no_captures};
      m = NearMatch{e.id, render(e.title, c), hit.similarity, line.number, kb.example_lines.at(hit.document)};
    }
  }
  std::vector<NearMatch> out;
  for (auto& [entry, m] : best) out.push_back(std::move(m));
  std::stable_sort(out.begin(), out.end(),
                   [](const NearMatch& a, const NearMatch& b) { return a.similarity > b.similarity; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace kb_detail
}  // namespace accel
