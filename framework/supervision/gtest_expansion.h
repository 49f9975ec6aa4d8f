// Expands every registered kernel into gtest cases with ::testing::RegisterTest.
#pragma once

namespace rkt {

/// Registers the cases of every kernel whose task is registered, and offers those that run in a
/// process of their own to run beside the others (supervision/cases_beside.h). Call after
/// InitGoogleTest and after the registry validated.
void register_gtest_cases();

}  // namespace rkt
