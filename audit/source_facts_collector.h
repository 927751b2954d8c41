#pragma once
// The AST consumer that walks the user's declarations once and fills SourceFacts.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <clang/AST/ASTConsumer.h>

#include "audit/source_facts.h"

namespace cusched::audit {

// Maps a path Clang saw to the name shown in findings.
using DisplayName = std::function<std::string(const std::string& path)>;
// Whether declarations from this file are audited at the source level (the
// in-memory device library is not; the IR rules still see what it inlines).
using IsAudited = std::function<bool(const std::string& path)>;

std::unique_ptr<clang::ASTConsumer> make_source_facts_collector(SourceFacts& out, DisplayName display_name,
                                                                IsAudited is_audited);

// The location of a Clang source position, as the user sees it.
SourceLocation to_location(const clang::ASTContext& ctx, const DisplayName& display_name, unsigned raw_location);

}  // namespace cusched::audit
