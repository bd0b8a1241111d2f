#pragma once
/// \file
/// Everything a kernel author includes: `#include "tessera/dsl/tsr.h"`.

#include "tessera/dsl/Activation.h"
#include "tessera/dsl/Broadcast.h"
#include "tessera/dsl/Index.h"
#include "tessera/dsl/Isa.h"
#include "tessera/dsl/Kernel.h"
#include "tessera/dsl/Launch.h"
#include "tessera/dsl/Operators.h"
#include "tessera/dsl/Ops.h"
#include "tessera/dsl/Position.h"
#include "tessera/dsl/Scan.h"
#include "tessera/dsl/Scratch.h"
#include "tessera/dsl/Tile.h"
#include "tessera/dsl/TileSize.h"
#include "tessera/dsl/Transpose.h"
#include "tessera/dsl/isa/Activation.h"
#include "tessera/dsl/isa/Elementwise.h"
#include "tessera/dsl/isa/Reductions.h"
#include "tessera/dsl/isa/Scalar.h"
#include "tessera/dsl/isa/Shuffle.h"
#include "tessera/dsl/isa/TensorEngine.h"
