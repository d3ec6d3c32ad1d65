public enum ChecksPlaceholder {}
