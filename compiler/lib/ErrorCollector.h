#pragma once
/// \file
/// Internal to the compiler: turns the first error MLIR reports while a context is in use into a tessera::Error
/// at the kernel's source line, so callers outside the compiler never see MLIR diagnostics.

#include "tessera/compiler/Compiler.h"
#include "tessera/compiler/ToProgram.h"
#include "tessera/isa/Error.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <fmt/format.h>

#include <optional>
#include <string>

namespace tessera::compiler {

class ErrorCollector {
public:
  /// `who` names the component in messages ("the compiler", "the golden model"); `prefix` starts each message.
  ErrorCollector(mlir::MLIRContext &ctx, std::string who, std::string prefix = {})
      : who_(std::move(who)), prefix_(std::move(prefix)),
        handler_(&ctx, [this](mlir::Diagnostic &d) {
          if (d.getSeverity() == mlir::DiagnosticSeverity::Error && !error_)
            error_ = Error(prefix_ + d.str(), sourceOf(d.getLocation()));
          return mlir::success();
        }) {}

  /// Throws the first error collected, or one saying that `stage` failed without a message.
  [[noreturn]] void raise(const char *stage) {
    if (error_ && error_->message().find(kInstructionLimitMessage) != std::string::npos)
      throw InstructionLimitError(error_->message(), error_->where());
    if (error_) throw *error_;
    throw Error(fmt::format("{}'s {} stage failed without a message", who_, stage));
  }

private:
  std::string who_, prefix_;
  mlir::ScopedDiagnosticHandler handler_;
  std::optional<Error> error_;
};

} // namespace tessera::compiler
