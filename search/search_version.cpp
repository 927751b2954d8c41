// The search's version string, stored with every run.
namespace cusched::search {
const char* search_version() { return "cusched-search 0.1"; }
}  // namespace cusched::search
