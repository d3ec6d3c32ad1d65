// Reports releases to ReleasePoints (Linux runners only). See the .c file.
#pragma once
void workbook_release_point_interposers_linked(void);
