/**
 * Usernames are unique ignoring case (CONTRACT.md §2). Every store keys users by this one function
 * so that a snapshot moved between stores keeps exactly the same uniqueness.
 */
export const usernameKey = (username: string): string => username.toLowerCase();
