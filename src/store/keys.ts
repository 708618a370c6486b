/**
 * Usernames are unique ignoring case (docs/API.md). Every store keys users by this one function
 * so that a snapshot moved between stores keeps exactly the same uniqueness.
 */
export const usernameKey = (username: string): string => username.toLowerCase();
