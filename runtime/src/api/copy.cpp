// Placeholder: filled by the change that adds this capability (issue 21).
