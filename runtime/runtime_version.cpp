// The runtime's version string, reported with every evaluation.
namespace cusched::runtime {
const char* runtime_version() { return "cusched-runtime 0.1"; }
}  // namespace cusched::runtime
