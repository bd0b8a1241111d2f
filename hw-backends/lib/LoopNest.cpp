#include "LoopNest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

namespace tessera::backends {

namespace {

/// An iteration's code with every integer literal (outside strings, comments and float literals) taken out:
/// `text` holds '\x01' where each was, `slots` their values in order.
struct Template {
  std::string text;
  std::vector<int64_t> slots;
};

constexpr char kSlot = '\x01';

bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

Template templateOf(const Lines &lines) {
  std::string code;
  for (const std::string &line : lines) code += line + '\n';
  Template t;
  for (size_t i = 0; i < code.size();) {
    const char c = code[i];
    size_t j = i + 1;
    if (c == '#') { // a comment, to the end of its line
      j = code.find('\n', i);
    } else if (c == '"' || c == '\'') { // a string literal, escapes included
      while (j < code.size() && code[j] != c) j += code[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, code.size());
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (j < code.size() && identifierChar(code[j])) ++j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (j < code.size() && std::isdigit(static_cast<unsigned char>(code[j]))) ++j;
      const bool real = j < code.size() && (code[j] == '.' || code[j] == 'e' || code[j] == 'E');
      if (!real) {
        t.slots.push_back(std::stoll(code.substr(i, j - i)));
        t.text += kSlot;
        i = j;
        continue;
      }
      while (j < code.size() && (std::isdigit(static_cast<unsigned char>(code[j])) || code[j] == '.' ||
                                 code[j] == 'e' || code[j] == 'E' ||
                                 ((code[j] == '-' || code[j] == '+') && (code[j - 1] == 'e' || code[j - 1] == 'E'))))
        ++j;
    }
    t.text.append(code, i, j - i);
    i = j;
  }
  return t;
}

/// The end of the run of iterations from `first` that fold: the same text, every slot growing by the same step.
size_t runEnd(const std::vector<Template> &t, size_t first) {
  const size_t n = t.size();
  if (first + 1 >= n || t[first].text.empty() || t[first + 1].text != t[first].text) return first + 1;
  size_t end = first + 2;
  for (; end < n && t[end].text == t[first].text; ++end) {
    bool affine = true;
    const auto span = static_cast<int64_t>(end - first);
    for (size_t s = 0; s < t[first].slots.size() && affine; ++s) {
      const int64_t step = t[first + 1].slots[s] - t[first].slots[s];
      affine = t[end].slots[s] == t[first].slots[s] + span * step;
    }
    if (!affine) break;
  }
  return end;
}

/// d * var + c, as a Python expression. The constant is written even when it is 0 (" + 0"), so that the same
/// expression in the iterations of an enclosing loop has the same form whatever its constant; withoutZeroTerms
/// removes those once the folding is done.
std::string affine(int64_t c, int64_t d, const std::string &var) {
  if (d == 0) return fmt::format("{}", c);
  const std::string term = d == 1 ? var : d == -1 ? "-" + var : fmt::format("{}*{}", d, var);
  return c >= 0 ? fmt::format("{} + {}", term, c) : fmt::format("{} - {}", term, -c);
}

/// The first character other than a space before `at` in `text` (0 if none), and the first from `at` on.
char before(const std::string &text, size_t at) {
  while (at > 0 && text[at - 1] == ' ') --at;
  return at > 0 ? text[at - 1] : '\0';
}
char after(const std::string &text, size_t at) {
  while (at < text.size() && text[at] == ' ') ++at;
  return at < text.size() ? text[at] : '\0';
}

/// How a slot's literal follows the iteration k of a loop: base + step * (k % divisor) + across * (k // divisor);
/// divisor 0: base + step * k (affine, the common case).
struct SlotForm {
  int64_t base = 0, step = 0, across = 0, divisor = 0;
  bool varies() const { return step != 0 || across != 0; }
};

/// The form as a Python expression of `var`. The constant is written even when it is 0 (see affine()).
std::string expression(const SlotForm &f, const std::string &var) {
  if (f.divisor == 0) return affine(f.base, f.step, var);
  std::string text;
  const auto term = [&](int64_t k, const std::string &what) {
    if (k == 0) return;
    const std::string factor = k == 1 || k == -1 ? what : fmt::format("{}*{}", k < 0 ? -k : k, what);
    text += text.empty() ? (k < 0 ? "-" + factor : factor) : (k < 0 ? " - " : " + ") + factor;
  };
  term(f.step, fmt::format("({} % {})", var, f.divisor));
  term(f.across, fmt::format("({} // {})", var, f.divisor));
  return f.base >= 0 ? fmt::format("{} + {}", text, f.base) : fmt::format("{} - {}", text, -f.base);
}

/// The loop over iterations [first, end) of `t`, its body written in terms of `var`, each slot's literal by its form.
Lines loopOver(const std::vector<Template> &t, size_t first, size_t end, const std::string &var,
               const std::vector<SlotForm> &forms) {
  const Template &a = t[first];
  std::string body;
  size_t slot = 0;
  for (size_t i = 0; i < a.text.size(); ++i) {
    if (a.text[i] != kSlot) {
      body += a.text[i];
      continue;
    }
    const SlotForm &form = forms[slot];
    std::string value = expression(form, var);
    const bool compound = value.find_first_of("+-", 1) != std::string::npos || value.front() == '-';
    const char left = before(body, body.size()), right = after(a.text, i + 1);
    if (compound && form.varies() && (std::string_view("*/%-").find(left) != std::string_view::npos ||
                                      std::string_view("*/%").find(right) != std::string_view::npos))
      value = "(" + value + ")";
    body += value;
    ++slot;
  }
  const std::string range = first == 0 ? fmt::format("{}", end) : fmt::format("{}, {}", first, end);
  Lines out{fmt::format("for {} in range({}):", var, range)};
  for (size_t start = 0; start < body.size();) {
    size_t stop = body.find('\n', start);
    if (stop == std::string::npos) stop = body.size();
    const std::string line = body.substr(start, stop - start);
    out.push_back(line.empty() ? line : "    " + line);
    start = stop + 1;
  }
  return out;
}

/// The scf.for records around tile op `op` (Provenance::tileOps), outermost first; none for an op out of range.
std::vector<int32_t> loopsAround(const compiler::Provenance &prov, int32_t op) {
  std::vector<int32_t> loops;
  if (op < 0 || static_cast<size_t>(op) >= prov.tileOps.size()) return loops;
  for (int32_t loop = prov.tileOps[op].loop; loop >= 0; loop = prov.tileOps[loop].loop) loops.push_back(loop);
  std::reverse(loops.begin(), loops.end());
  return loops;
}

/// The affine form of each slot over iterations [first, end) (runEnd found them affine).
std::vector<SlotForm> affineForms(const std::vector<Template> &t, size_t first) {
  std::vector<SlotForm> forms;
  for (size_t s = 0; s < t[first].slots.size(); ++s) {
    const int64_t step = t[first + 1].slots[s] - t[first].slots[s];
    forms.push_back({.base = t[first].slots[s] - step * static_cast<int64_t>(first), .step = step});
  }
  return forms;
}

/// Every iteration of `t` as one loop whose slots follow k % d and k // d (a loop index divided in the kernel, as
/// NKI's `i // 2`): each slot affine or, for the least d in [2, n) that fits, base + step (k % d) + across (k // d).
/// nullopt when the iterations' texts differ or a slot fits no form.
std::optional<std::vector<SlotForm>> divisionForms(const std::vector<Template> &t) {
  const size_t n = t.size();
  if (n < 4 || t[0].text.empty()) return std::nullopt;
  for (const Template &x : t)
    if (x.text != t[0].text) return std::nullopt;
  std::vector<SlotForm> forms;
  for (size_t s = 0; s < t[0].slots.size(); ++s) {
    const auto v = [&](size_t k) { return t[k].slots[s]; };
    const auto fits = [&](const SlotForm &f) {
      for (size_t k = 0; k < n; ++k) {
        const auto i = static_cast<int64_t>(k);
        const int64_t expected = f.divisor == 0 ? f.base + f.step * i
                                                : f.base + f.step * (i % f.divisor) + f.across * (i / f.divisor);
        if (v(k) != expected) return false;
      }
      return true;
    };
    std::optional<SlotForm> found;
    if (const SlotForm linear{.base = v(0), .step = v(1) - v(0)}; fits(linear)) found = linear;
    for (size_t d = 2; d < n && !found; ++d)
      if (const SlotForm f{.base = v(0), .step = v(1) - v(0), .across = v(d) - v(0), .divisor = int64_t(d)}; fits(f))
        found = f;
    if (!found) return std::nullopt;
    forms.push_back(*found);
  }
  return forms;
}

} // namespace

std::vector<Step> kernelOrder(std::vector<Step> steps, const compiler::Provenance &prov) {
  // A step's place in the walk: (loop, iteration) for each loop around its op, outermost first, then the op.
  // Tile ops are numbered in pre-order, so a loop's number is below those of the ops inside it and above those
  // after it, and comparing these keys element by element is comparing positions in the walk.
  std::vector<std::vector<int64_t>> keys;
  keys.reserve(steps.size());
  for (const Step &s : steps) {
    if (s.tileOp < 0 || static_cast<size_t>(s.tileOp) >= prov.tileOps.size() || !s.iterations) return steps;
    const std::vector<int32_t> chain = loopsAround(prov, s.tileOp);
    if (chain.size() != s.iterations->size()) return steps;
    std::vector<int64_t> key;
    for (size_t d = 0; d < chain.size(); ++d) {
      key.push_back(chain[d]);
      key.push_back((*s.iterations)[d]);
    }
    key.push_back(s.tileOp);
    keys.push_back(std::move(key));
  }
  std::vector<size_t> order(steps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  std::vector<Step> sorted;
  sorted.reserve(steps.size());
  for (size_t i : order) sorted.push_back(std::move(steps[i]));
  return sorted;
}

std::optional<std::vector<LoopNode>> loopNest(const std::vector<Step> &steps, const compiler::Provenance &prov) {
  std::vector<LoopNode> top;
  for (const Step &s : steps) {
    const std::vector<int32_t> chain = loopsAround(prov, s.tileOp);
    const std::vector<int64_t> &iterations = s.iterations ? *s.iterations : std::vector<int64_t>{};
    if (iterations.size() != chain.size()) return std::nullopt;
    std::vector<LoopNode> *nodes = &top;
    for (size_t d = 0; d < chain.size(); ++d) {
      if (nodes->empty() || nodes->back().loop != chain[d]) {
        for (const LoopNode &n : *nodes)
          if (n.loop == chain[d]) return std::nullopt; // the loop resumes after something else ran
        nodes->push_back(LoopNode{.loop = chain[d]});
      }
      LoopNode &loop = nodes->back();
      const int64_t k = iterations[d];
      if (k < 0 || k + 1 < static_cast<int64_t>(loop.iterations.size())) return std::nullopt; // back in time
      if (k >= static_cast<int64_t>(loop.iterations.size())) loop.iterations.resize(k + 1);
      nodes = &loop.iterations[k];
    }
    nodes->push_back(LoopNode{.step = &s});
  }
  return top;
}

std::string withoutZeroTerms(std::string line) {
  static constexpr std::string_view kZero = " + 0";
  for (size_t at = line.find(kZero); at != std::string::npos; at = line.find(kZero, at)) {
    const size_t next = at + kZero.size();
    const bool alone = next == line.size() || !(std::isdigit(static_cast<unsigned char>(line[next])) ||
                                                line[next] == '.' || line[next] == '*' || line[next] == 'e');
    if (alone)
      line.erase(at, kZero.size());
    else
      at = next;
  }
  return line;
}

int loopDepth(const compiler::Provenance &prov, int32_t loop) {
  return static_cast<int>(loopsAround(prov, loop).size());
}

Lines foldIterations(const std::vector<Lines> &iterations, const std::string &var,
                     const std::function<std::string(const std::string &)> &relax) {
  std::vector<Template> exact, relaxed;
  for (const Lines &lines : iterations) exact.push_back(templateOf(lines));
  if (relax)
    for (const Lines &lines : iterations) {
      Lines loose;
      for (const std::string &line : lines) loose.push_back(relax(line));
      relaxed.push_back(templateOf(loose));
    }
  Lines out;
  // Iterations that are one loop only with their index divided: one loop, not a run per quotient.
  if (runEnd(exact, 0) < iterations.size() && (!relax || runEnd(relaxed, 0) < iterations.size())) {
    if (std::optional<std::vector<SlotForm>> forms = divisionForms(exact))
      return loopOver(exact, 0, iterations.size(), var, *forms);
    if (std::optional<std::vector<SlotForm>> forms = relax ? divisionForms(relaxed) : std::nullopt)
      return loopOver(relaxed, 0, iterations.size(), var, *forms);
  }
  for (size_t first = 0; first < iterations.size();) {
    size_t end = runEnd(exact, first);
    const std::vector<Template> *t = &exact;
    if (relax) // the looser form where it folds more iterations
      if (const size_t looser = runEnd(relaxed, first); looser > end) {
        end = looser;
        t = &relaxed;
      }
    if (end - first >= 2) {
      Lines loop = loopOver(*t, first, end, var, affineForms(*t, first));
      out.insert(out.end(), loop.begin(), loop.end());
    } else {
      end = first + 1;
      out.insert(out.end(), iterations[first].begin(), iterations[first].end());
    }
    first = end;
  }
  return out;
}

} // namespace tessera::backends
