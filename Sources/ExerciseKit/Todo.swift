public enum ExerciseKitPlaceholder {}
