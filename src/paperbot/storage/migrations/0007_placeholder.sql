-- LOCAL PLACEHOLDER, never committed: 0007 belongs to another helper.
SELECT 1;
