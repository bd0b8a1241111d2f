#include "SimContext.h"

#include <systemc>

#include <cstdio>
#include <cstdlib>

namespace tessera::sim {
namespace {

std::mutex &simulationMutex() {
  static std::mutex m;
  return m;
}

/// SystemC's report handler, except that what it would display goes to stderr rather than stdout.
void reportToStderr(const sc_core::sc_report &report, const sc_core::sc_actions &actions) {
  if (actions & sc_core::SC_DISPLAY)
    std::fprintf(stderr, "%s\n", sc_core::sc_report_compose_message(report).c_str());
  sc_core::sc_report_handler::default_handler(report, actions & ~sc_core::SC_DISPLAY);
}

/// Keeps SystemC off stdout (the CLI's --json output goes there): no copyright banner, which SystemC prints on
/// the first context it initialises unless this variable is set; no info lines (such as "Simulation stopped by
/// user"); warnings go to stderr. SystemC errors still throw.
void silenceSystemC() {
  static const bool silenced = [] {
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", /*overwrite=*/0);
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_handler(reportToStderr);
    return true;
  }();
  (void)silenced;
}

} // namespace

FreshSimContext::FreshSimContext() : exclusive_(simulationMutex()) {
  silenceSystemC();
  previous_ = sc_core::sc_curr_simcontext;
  previousDefault_ = sc_core::sc_default_global_context;
  context_ = new sc_core::sc_simcontext;
  sc_core::sc_curr_simcontext = context_;
  sc_core::sc_default_global_context = context_;
  // Engines and the DMA model express every duration in whole picoseconds (sc_time::from_value).
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
}

FreshSimContext::~FreshSimContext() {
  delete context_;
  sc_core::sc_curr_simcontext = previous_;
  sc_core::sc_default_global_context = previousDefault_;
}

} // namespace tessera::sim

/// SystemC's shared library carries a main() that calls sc_main(); Tessera programs bring their own main(), so
/// this stub only satisfies the linker. Reaching it means SystemC's main() won over the program's: say so loudly
/// rather than exiting 0 having done nothing.
extern "C" int sc_main(int, char *[]) {
  std::fputs("tessera: SystemC's main() ran instead of the program's own; link the program's main first\n", stderr);
  return 1;
}
