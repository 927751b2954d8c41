// The one-line-per-step text form: `op key=value key=value`, lists comma-separated.
#include <sstream>

#include "dsl/error.h"
#include "dsl/schedule.h"

namespace cusched {

std::string Schedule::to_text() const {
  std::ostringstream os;
  for (const auto& step : steps_) {
    const PrimitiveDef* p = find_primitive(step["op"]);
    os << p->name;
    for (const auto& a : p->args) {
      if (!step.contains(a.name)) continue;
      const auto& v = step[a.name];
      os << " " << a.name << "=";
      if (v.is_array()) {
        for (size_t i = 0; i < v.size(); ++i)
          os << (i ? "," : "") << (v[i].is_string() ? v[i].get<std::string>() : v[i].dump());
      } else if (v.is_string()) {
        os << v.get<std::string>();
      } else {
        os << v.dump();
      }
    }
    os << "\n";
  }
  return os.str();
}

// A text value as an integer where the whole word is one, else as the word (which the
// registry then reports as mistyped).
static nlohmann::json integer_or_word(const std::string& word) {
  try {
    size_t used = 0;
    long long v = std::stoll(word, &used);
    if (used == word.size()) return v;
  } catch (const std::exception&) {}
  return word;
}

Schedule Schedule::from_text(ScheduleContext ctx, const std::string& text) {
  Schedule s(std::move(ctx));
  std::istringstream in(text);
  std::string line;
  int index = 0;
  while (std::getline(in, line)) {
    auto hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    std::istringstream words(line);
    std::string op;
    if (!(words >> op)) continue;
    StepJson step = {{"op", op}};
    const PrimitiveDef* p = find_primitive(op);
    std::string word;
    while (words >> word) {
      auto eq = word.find('=');
      if (eq == std::string::npos || eq == 0) {
        Error e{index,
                op,
                "bad-text-step",
                "The word '" + word + "' is not of the form key=value.",
                "Write each argument as key=value, e.g. factor=128.",
                "schedule"};
        throw UserError(e);
      }
      std::string key = word.substr(0, eq), value = word.substr(eq + 1);
      ArgType type = ArgType::Name;
      if (p)
        for (const auto& a : p->args)
          if (a.name == key) type = a.type;
      if (type == ArgType::Int) {
        step[key] = integer_or_word(value);
      } else if (type == ArgType::Bool) {
        if (value == "true")
          step[key] = true;
        else if (value == "false")
          step[key] = false;
        else
          step[key] = value;
      } else if (type == ArgType::IntList || type == ArgType::NameList) {
        nlohmann::json items = nlohmann::json::array();
        std::istringstream parts(value);
        std::string item;
        while (std::getline(parts, item, ','))
          items.push_back(type == ArgType::IntList ? integer_or_word(item) : nlohmann::json(item));
        step[key] = items;
      } else {
        step[key] = value;
      }
    }
    s.apply(step);
    ++index;
  }
  s.check_legality();
  return s;
}

}  // namespace cusched
