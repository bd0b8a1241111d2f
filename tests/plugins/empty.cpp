// A plugin without a single kernel (no tsr::Registration): loading it must say so.

int pluginWithoutKernels() { return 0; }
