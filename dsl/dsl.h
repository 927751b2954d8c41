#pragma once
// The algorithm language in one include.
#include "dsl/dtype.h"
#include "dsl/error.h"
#include "dsl/expr.h"
#include "dsl/func.h"
#include "dsl/padded_load.h"
#include "dsl/pipeline.h"
#include "dsl/var.h"
