#pragma once
// A compilation target: which mapping passes the lowering runs for it, which texts it can
// generate, and how it turns a LoopNest into those texts and a Kernel. Every face asks the
// registry, so adding a target means adding a folder under targets/ and one line in
// Targets.cpp; nothing in the CLI, the IDE or the tuner changes.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/GeneratedText.h"
#include "codegen/ObjectCode.h"
#include "kernel/Kernel.h"
#include "loopnest/LoopNest.h"
#include "poly/Passes.h"
#include "targets/TargetIdentity.h"

namespace tcs {

// What codegen reads: the checked def, its shapes and the lowered loop nest.
struct CodegenInput {
  const SemaDef* def = nullptr;
  const DefShapes* shapes = nullptr;
  const LoopNest* nest = nullptr;
  std::vector<std::string> text_kinds;  // text kinds asked for, a subset of Target::text_kinds
  bool build_kernel = false;
  // An object file for the user's own project (export): the CPU ("host" or an LLVM CPU
  // name) and the prefix of its symbols; empty object_cpu: none. Targets without objects
  // refuse it.
  std::string object_cpu, object_prefix;
  bool symbolic_sizes = false;  // the nest keeps its sizes as parameters (CodegenChoice)
  const std::atomic<bool>* cancel = nullptr;
  // Called once the first, cheap texts exist (the CPU target's C), before slower phases:
  // the IDE shows them while the rest compiles. Receives the texts so far.
  std::function<void(const std::map<std::string, GeneratedText>&, const std::vector<PhaseTime>&)> early;
};

struct CodegenOutput {
  std::map<std::string, GeneratedText> texts;  // by kind: "c", "llvm", "asm", later "cuda", "ptx"
  std::shared_ptr<Kernel> kernel;              // when build_kernel
  ObjectCode object;                           // when object_cpu was given
  std::vector<PhaseTime> timings;
};

struct Target {
  std::string name;         // "cpu"
  std::string description;  // one line, for --help and the IDE's target menu
  std::vector<std::string> text_kinds;  // what it can emit, in the order views show them
  std::vector<MappingPass> mapping_passes;
  std::function<Expected<CodegenOutput>(const CodegenInput&)> generate;
  // The machine this target would run on here, for the tuning cache's keys.
  std::function<TargetIdentity()> identify;
};

// The registered targets, in a stable order.
const std::vector<Target>& targets();
// Null when there is none of that name.
const Target* find_target(std::string_view name);
// "cpu" or a list of the known names, for messages.
std::string target_names();

}  // namespace tcs
