// Test harness for the generated alias_rules.h (built by alias_spec/engines/cpp_engine.py).
//
// Reads one request per line from stdin: every fact in kFactNames order as a decimal
// integer (bool facts 0 or 1), then a profile index (kProfileNames order). Writes one line
// per request: the indices of the rules that fire, in catalogue order, separated by spaces.
// A malformed line is a usage error (exit status 2), never a guess.

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>

#include "alias_rules.h"

namespace {

int fail(std::size_t lineNo, const char *what) {
  std::cerr << "harness: line " << lineNo << ": " << what << '\n';
  return 2;
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  std::size_t lineNo = 0;
  std::string out;
  while (std::getline(std::cin, line)) {
    ++lineNo;
    std::istringstream in(line);
    tle_alias::Facts facts;
    for (std::size_t i = 0; i < tle_alias::kNumFacts; ++i) {
      long long value = 0;  // operator>> fails (rather than wraps) outside long long
      if (!(in >> value)) return fail(lineNo, "expected a decimal int64 fact");
      tle_alias::set_fact(facts, i, static_cast<std::int64_t>(value));
    }
    long long profile = -1;
    if (!(in >> profile) || profile < 0 ||
        profile >= static_cast<long long>(tle_alias::kNumProfiles))
      return fail(lineNo, "expected a profile index");
    std::string rest;
    if (in >> rest) return fail(lineNo, "trailing input");
    const auto violations = tle_alias::check(facts, static_cast<tle_alias::Profile>(profile));
    for (std::size_t k = 0; k < violations.size(); ++k) {
      if (k != 0) out += ' ';
      out += std::to_string(static_cast<int>(violations[k].rule));
    }
    out += '\n';
  }
  std::cout << out;
  std::cout.flush();
  return std::cout ? 0 : 1;
}
