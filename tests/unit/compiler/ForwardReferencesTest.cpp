// The textual check compileFile runs before MLIR parses a file (compiler/lib/Import/ForwardReferences.h): a use of
// an SSA value above its definition is found with its line and column; every kind of definition Tessera's modules
// hold is recognised, so the files the compiler prints pass.

#include "Import/ForwardReferences.h"

#include <gtest/gtest.h>

namespace {

using tessera::compiler::findForwardReference;

TEST(ForwardReferences, FindsAUseAboveItsDefinition) {
  const char *text = "func.func @k() {\n"
                     "  %1 = arith.addi %c, %c : index\n"
                     "  %c = arith.constant 1 : index\n"
                     "}\n";
  auto found = findForwardReference(text);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->name, "%c");
  EXPECT_EQ(found->line, 2u);
  EXPECT_EQ(found->column, 19u);
}

TEST(ForwardReferences, ADefinitionInAClosedRegionIsOutOfScope) {
  const char *text = "%a = arith.constant 0 : index\n"
                     "scf.for %i = %a to %a step %a {\n"
                     "  %x = arith.constant 1 : index\n"
                     "}\n"
                     "%y = arith.addi %x, %x : index\n";
  auto found = findForwardReference(text);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->name, "%x");
  EXPECT_EQ(found->line, 5u);
}

TEST(ForwardReferences, EveryKindOfDefinitionCounts) {
  const char *text =
      "// a comment with %nothing\n"
      "module attributes {tessera.target = \"trn2\"} {\n"
      "  func.func @k(%arg0: memref<4xf32> {tile.name = \"a %b\"}, %arg1: index) {\n"
      "    %c0 = arith.constant 0 : index\n"
      "    %r:2, %q = \"test.op\"(%arg1) : (index) -> (index, index, index)\n"
      "    %s = scf.for %i = %c0 to %arg1 step %r#1 iter_args(%acc = %q) -> (index) {\n"
      "      %n = arith.addi %acc, %i : index\n"
      "      scf.yield %n : index\n"
      "    }\n"
      "    tile.load %arg0[%c0], %s : memref<4xf32>, index loc(\"k.cpp\":3:4)\n"
      "    return\n"
      "  }\n"
      "}\n";
  EXPECT_FALSE(findForwardReference(text)) << findForwardReference(text)->name;
}

} // namespace
