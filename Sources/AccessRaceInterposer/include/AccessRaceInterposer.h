// Shows ThreadSanitizer the learner's accesses to values it cannot see (Linux TSan runners only).
// See the .c file.
#pragma once
void workbook_access_race_interposer_linked(void);
