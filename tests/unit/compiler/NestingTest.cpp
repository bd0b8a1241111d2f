// The textual check compileFile and tessera-opt run before MLIR parses a file (compiler/lib/Import/Nesting.h):
// brackets nested past the limit are refused at the first bracket too deep; strings, comments and `->` do not
// count; a module of ordinary depth passes.

#include "Import/Nesting.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using tessera::compiler::findDeepNesting;

TEST(Nesting, TheFirstBracketPastTheLimitIsFound) {
  const std::string text = "module {\n  func.func @f() {\n    {{{\n";
  const auto deep = findDeepNesting(text, 4);
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->line, 3u);
  EXPECT_EQ(deep->column, 7u); // the third of "{{{", the fifth level
  EXPECT_FALSE(findDeepNesting(text, 5));
}

TEST(Nesting, ClosedLevelsAndArrowsDoNotCount) {
  std::string flat;
  for (int i = 0; i < 10000; ++i) flat += "(x) -> memref<4xf32> [a] {b}\n";
  EXPECT_FALSE(findDeepNesting(flat, 2));
}

TEST(Nesting, StringsAndCommentsDoNotCount) {
  const std::string text = "\"((((\\\"((((\" // {{{{{{{{\n{}";
  EXPECT_FALSE(findDeepNesting(text, 1));
}

TEST(Nesting, TenThousandLevelsAreRefused) {
  const std::string deep = std::string(10000, '{') + std::string(10000, '}');
  const auto found = findDeepNesting(deep);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->column, tessera::compiler::kMaxNesting + 1);
}

} // namespace
