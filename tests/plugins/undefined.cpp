// A plugin that needs a symbol nothing defines: loading it must fail and name the symbol. Linked without -z defs
// (unlike tessera_add_kernels' plugins), as a plugin built against another Tessera would be.

extern "C" int tessera_test_symbol_nobody_defines();

int pluginNeedsAMissingSymbol() { return tessera_test_symbol_nobody_defines(); }
