// What the files of the C ABI share: the profile handle, and the guard and model access of
// capi/profpack.cpp for the entry points defined in other files.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "model/model.h"
#include "profile.h"
#include "profpack/profpack.h"

// A handle: the profile's data, shared by its views, and what this handle shows of it. Nothing
// in a handle changes after it is made but its models, each built once on first use.
struct profpack_profile {
  std::shared_ptr<const profpack::Profile> profile;
  profpack::ModelOptions options;  // a view's thread and binary
  std::mutex modelMutex;
  std::unique_ptr<profpack::Model> model;  // built on the first query, for `options`
  // Per thread, the model of that thread, built on the first query that names it
  // (profpack_profile_top's thread); under modelMutex.
  std::map<size_t, std::unique_ptr<profpack::Model>> threadModels;
};

namespace profpack::capi {

// Resets the thread's error, runs `f`, and turns whatever it throws into a status and the
// thread's error, as every entry point does.
profpack_status guarded(const std::function<void()>& f) noexcept;

// The model of the handle, built on first use.
const Model& modelOf(const profpack_profile* p);

}  // namespace profpack::capi
