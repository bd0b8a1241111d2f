#include "tessera/commands/RunOutputs.h"

#include "tessera/HtmlReport.h"
#include "tessera/ProgressBar.h"
#include "tessera/Report.h"
#include "tessera/Trace.h"
#include "tessera/JsonText.h"

#include <fmt/format.h>

#include <cstdio>

namespace po = boost::program_options;

namespace tessera::driver {

void RunOutputs::add(po::options_description &desc) {
  desc.add_options()("trace", po::value(&tracePath)->value_name("FILE.json"),
                     "write the run's timeline as a Chrome/Perfetto trace (open it in ui.perfetto.dev)")(
      "report", po::value(&reportPath)->value_name("FILE.html"),
      "write an HTML report: summary, engine use, timeline, roofline, memory, stalls");
}

bool RunOutputs::open() {
  if (!tracePath.empty()) trace.emplace(tracePath, "trace");
  if (!reportPath.empty()) html.emplace(reportPath, "report");
  return trace || html;
}

void RunOutputs::write(const RunReport &report) {
  if (trace) trace->commit(traceText(toTrace(report)));
  if (html) html->commit(toHtml(report));
}

RunReport simulateAndReport(RunRequest request, RunOutputs &outputs, bool json,
                            const std::function<RunReport(const RunRequest &)> &simulate) {
  request.recordTimeline = outputs.open();
  RunReport report;
  {
    ProgressBar bar(stderr, !json && ProgressBar::isTerminal(stderr));
    request.progress = bar.callback();
    request.waiting = bar.waitingCallback();
    report = simulate(request);
  }
  outputs.write(report);
  if (json) fmt::print("{}\n", jsonText(toJson(report), 2));
  else fmt::print("{}", toText(report));
  return report;
}

} // namespace tessera::driver
