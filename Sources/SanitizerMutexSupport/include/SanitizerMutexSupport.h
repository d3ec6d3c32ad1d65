// Tells ThreadSanitizer about Synchronization.Mutex's slow paths on Linux. See the .c file.
#pragma once
void workbook_sanitizer_mutex_support_linked(void);
