// `cusched review DB CANDIDATE --approve|--reject --note "..."`: a reviewer's verdict on
// a candidate, stored with the reviewer (--reviewer or $USER) and the time. `cusched
// export --require-approved` exports only approved candidates; the report shows reviews.
#include <iostream>

#include "dsl/input_limits.h"
#include "search/review.h"
#include "search/steering.h"
#include "search/store.h"
#include "tools/command.h"
#include "tools/flag_checks.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct ReviewCommandOptions {
  std::string db, note, reviewer;
  int64_t candidate = 0;
  bool approve = false, reject = false, json = false, list = false;
};

CommandRegistration review_command{
    {"review", "Approve or reject a stored candidate with a note (export --require-approved reads it)",
     [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<ReviewCommandOptions>();
       sub.add_option("db", o->db, "The search's SQLite store")->required();
       sub.add_option("candidate", o->candidate, "Candidate id (as `cusched status` or the report lists it)")
           ->check(integer_in(1, INT64_MAX));
       auto* approve = sub.add_flag("--approve", o->approve, "Approve the candidate");
       auto* reject = sub.add_flag("--reject", o->reject, "Reject the candidate");
       approve->excludes(reject);
       sub.add_option("--note", o->note, "Why, in a sentence (required with --approve or --reject)");
       sub.add_option("--reviewer", o->reviewer, "Who reviews (default: $USER)");
       sub.add_flag("--list", o->list, "List the reviews of the candidate's run (of the latest run without one)");
       sub.add_flag("--json", o->json, "Print JSON");
       return [o] {
         try {
           search::Store store(o->db, search::Store::Mode::existing_only);
           std::optional<search::Review> added;
           int64_t run = 0;
           if (o->candidate) {
             auto c = store.candidate(o->candidate);
             if (!c)
               fail("review-no-candidate", "The store has no candidate " + std::to_string(o->candidate) + ".",
                    "Pass a candidate id that `cusched status` or `cusched report` lists.");
             run = c->run;
           } else if (auto latest = store.latest_run()) {
             run = *latest;
           }
           if (o->approve || o->reject) {
             if (!o->candidate)
               fail("review-no-candidate", "A review needs the candidate it is about.",
                    "Pass the candidate id after the store: `cusched review DB ID --approve --note ...`.");
             if (o->note.empty() || o->note.size() > 4000)
               fail("review-note", "A review needs a note of 1 to 4000 characters saying why.", "Pass --note \"...\".");
             auto reviewer = search::author_or_user(o->reviewer);
             if (!reviewer)
               fail("missing-reviewer",
                    "A review is stored with its reviewer, and neither --reviewer nor $USER is set.",
                    "Pass --reviewer NAME.");
             auto e = store.evaluation(o->candidate);
             if (o->approve && (!e || !e->verified))
               fail("review-unverified",
                    "Candidate " + std::to_string(o->candidate) + " was not verified" +
                        (e ? " (" + e->verdict + ")" : " (not evaluated yet)") + ", so it cannot be approved.",
                    "Approve a verified candidate, or record --reject with a note.");
             search::Review r;
             r.candidate = o->candidate;
             r.approved = o->approve;
             r.note = valid_utf8(o->note);
             r.reviewer = valid_utf8(*reviewer);
             r.id = search::add_review(store, r);
             added = search::latest_review(store, o->candidate);
           } else if (!o->list) {
             fail("review-nothing", "review was given neither --approve, --reject nor --list.",
                  "Pass --approve or --reject with --note, or --list.");
           }
           auto all = run ? search::reviews_of_run(store, run) : std::vector<search::Review>{};
           if (o->json) {
             nlohmann::json j = {{"ok", true}, {"run", run}};
             j["review"] = added ? added->to_json() : nlohmann::json();
             if (o->list) {
               j["reviews"] = nlohmann::json::array();
               for (const auto& r : all) j["reviews"].push_back(r.to_json());
             }
             std::cout << j.dump(2) << "\n";
           } else {
             auto print = [](const search::Review& r) {
               std::cout << "candidate " << r.candidate << " " << (r.approved ? "approved" : "rejected") << " by "
                         << r.reviewer << " at " << r.created << ": " << r.note << "\n";
             };
             if (added) print(*added);
             if (o->list)
               for (const auto& r : all) print(r);
           }
           return kExitOk;
         } catch (const UserError& e) {
           print_error_json(e.error());
           return kExitUsage;
         }
       };
     }}};

}  // namespace
}  // namespace cusched::tools
