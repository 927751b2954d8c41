#pragma once
// A handler for fatal signals that prints the call stack (tools/crash_report.cpp).
namespace cusched::tools {
void install_crash_report();
}
