// Shows ThreadSanitizer the learner's accesses to values it cannot see (Linux TSan runners only).
// See the .c file.
#pragma once
/// Finds the learner's code in the executable; call first thing in `main`, before any thread.
void workbook_access_race_interposer_start(void);
