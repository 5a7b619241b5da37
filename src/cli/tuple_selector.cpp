#include "cli/tuple_selector.hpp"

#include <cctype>
#include <sstream>
#include <vector>

#include "core/errors.hpp"

namespace kapla::cli {
namespace {

std::vector<std::string> fields(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string f; std::getline(in, f, ':');) out.push_back(f);
  if (!s.empty() && s.back() == ':') out.emplace_back();
  return out;
}

bool same_letter(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// The selector's fields are the key's first fields, the strategy (the third) also by its
// letter, the last one also a prefix of the key's field (what a user types before the batch).
bool matches(const sweep::TupleRecord& r, const std::string& key, const std::string& selector) {
  if (key.rfind(selector, 0) == 0) return true;
  const auto want = fields(selector);
  const auto have = fields(key);
  if (want.empty() || want.size() > have.size()) return false;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const bool last = i + 1 == want.size();
    const bool equal = want[i] == have[i] ||
                       (i == 2 && !r.tuple.strategy_letter.empty() &&
                        same_letter(want[i], r.tuple.strategy_letter)) ||
                       (last && have[i].rfind(want[i], 0) == 0);
    if (!equal) return false;
  }
  return true;
}

}  // namespace

const sweep::TupleRecord& select_tuple(const io::ResultsFile& results,
                                       const std::string& selector) {
  const std::string file = results.path.string();
  const std::string count = std::to_string(results.records.size()) + " tuples; `kapla results " +
                            file + " --csv` lists their keys";
  if (selector.empty()) {
    throw InputError(file + ": --tuple: a results file holds many schedules; name one (" + count +
                     ")");
  }
  std::vector<const sweep::TupleRecord*> found;
  for (const auto& r : results.records) {
    const std::string key = r.tuple.key();
    if (key == selector) return r;
    if (matches(r, key, selector)) found.push_back(&r);
  }
  if (found.size() == 1) return *found.front();
  const std::string at = file + ": --tuple '" + selector + "': ";
  if (found.empty()) throw InputError(at + "no such tuple (" + count + ")");
  std::string list;
  for (std::size_t i = 0; i < found.size() && i < 4; ++i) {
    list += (i ? ", " : "") + found[i]->tuple.key();
  }
  if (found.size() > 4) list += ", ...";
  throw InputError(at + "matches " + std::to_string(found.size()) + " tuples (" + list +
                   "); give more of the key");
}

}  // namespace kapla::cli
