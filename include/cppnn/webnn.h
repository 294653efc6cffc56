// cppnn: a C++20 implementation of the W3C WebNN API. Include this header for the whole API.
#pragma once

#include "cppnn/context.h"
#include "cppnn/data_type.h"
#include "cppnn/descriptor.h"
#include "cppnn/dynamic_call.h"
#include "cppnn/enums.h"
#include "cppnn/errors.h"
#include "cppnn/float16.h"
#include "cppnn/graph.h"
#include "cppnn/graph_builder.h"
#include "cppnn/graph_model.h"
#include "cppnn/number.h"
#include "cppnn/op_type.h"
#include "cppnn/operand.h"
#include "cppnn/options.h"
#include "cppnn/support_limits.h"
#include "cppnn/version.h"
