//! Times in the record: milliseconds since the Unix epoch, shown and exchanged as RFC 3339 in UTC
//! (`2026-11-21T09:14:31.123Z`), so records compare and sort the same on every machine.
//!
//! Also the two ways a user names a point in time on the command line (`--since`, `--older-than`):
//! a duration back from now (`90s`, `30m`, `12h`, `7d`, `2w`, or a sum such as `1d12h`) or a date
//! (`2026-11-21`, or with a time `2026-11-21T09:14[:31][Z]`, taken as UTC).

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point in time, in milliseconds since 1970-01-01T00:00:00Z.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    pub fn now() -> Timestamp {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        Timestamp(ms)
    }

    pub fn millis(self) -> i64 {
        self.0
    }

    /// `2026-11-21T09:14:31.123Z`.
    pub fn to_rfc3339(self) -> String {
        let (date, secs_of_day, ms) = split(self.0);
        let (y, m, d) = civil_from_days(date);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
            secs_of_day / 3600,
            secs_of_day / 60 % 60,
            secs_of_day % 60
        )
    }

    /// `2026-11-21 09:14`, for one-line listings.
    pub fn to_short(self) -> String {
        let (date, secs_of_day, _) = split(self.0);
        let (y, m, d) = civil_from_days(date);
        format!(
            "{y:04}-{m:02}-{d:02} {:02}:{:02}",
            secs_of_day / 3600,
            secs_of_day / 60 % 60
        )
    }

    /// `2026-11-21 09:14:05`, for pages that show seconds.
    pub fn to_seconds(self) -> String {
        let (date, secs_of_day, _) = split(self.0);
        let (y, m, d) = civil_from_days(date);
        format!(
            "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
            secs_of_day / 3600,
            secs_of_day / 60 % 60,
            secs_of_day % 60
        )
    }

    /// Parse what [`to_rfc3339`](Self::to_rfc3339) writes, and the shorter forms a person types:
    /// `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`, `YYYY-MM-DD HH:MM:SS`, with optional fraction and `Z`.
    pub fn parse(text: &str) -> Option<Timestamp> {
        let t = text.trim();
        let t = t
            .strip_suffix('Z')
            .or_else(|| t.strip_suffix('z'))
            .unwrap_or(t);
        let (date, time) = match t.find(['T', 't', ' ']) {
            Some(i) => (&t[..i], Some(&t[i + 1..])),
            None => (t, None),
        };
        let mut parts = date.split('-');
        let y: i64 = number(parts.next()?, 4)?;
        let m: i64 = number(parts.next()?, 2)?;
        let d: i64 = number(parts.next()?, 2)?;
        if parts.next().is_some() || !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
            return None;
        }
        let mut ms = days_from_civil(y, m, d) * 86_400_000;
        if let Some(time) = time {
            let (hms, frac) = match time.split_once('.') {
                Some((a, b)) => (a, Some(b)),
                None => (time, None),
            };
            let mut fields = hms.split(':');
            let h: i64 = number(fields.next()?, 2)?;
            let min: i64 = number(fields.next()?, 2)?;
            let s: i64 = match fields.next() {
                Some(s) => number(s, 2)?,
                None => 0,
            };
            if fields.next().is_some() || h > 23 || min > 59 || s > 60 {
                return None;
            }
            ms += (h * 3600 + min * 60 + s) * 1000;
            if let Some(frac) = frac {
                if frac.is_empty() || !frac.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let digits: String = frac.chars().chain("000".chars()).take(3).collect();
                ms += digits.parse::<i64>().ok()?;
            }
        }
        Some(Timestamp(ms))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Timestamp::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not an RFC 3339 time")))
    }
}

/// A duration like `90s`, `30m`, `12h`, `7d` or `2w` (units may be spelled out: `3 days`), or a
/// sum of such terms (`1d12h`), in milliseconds. Every command-line duration goes through here.
pub fn parse_duration(text: &str) -> Option<i64> {
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    let mut total: i64 = 0;
    while !rest.is_empty() {
        let (digits, after) = rest.split_at(rest.find(|c: char| !c.is_ascii_digit())?);
        let n: i64 = digits.parse().ok()?;
        let after = after.trim_start();
        let unit_end = after
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(after.len());
        let (unit, tail) = after.split_at(unit_end);
        let scale: i64 = match unit {
            "s" | "sec" | "secs" | "second" | "seconds" => 1_000,
            "m" | "min" | "mins" | "minute" | "minutes" => 60_000,
            "h" | "hour" | "hours" => 3_600_000,
            "d" | "day" | "days" => 86_400_000,
            "w" | "week" | "weeks" => 7 * 86_400_000,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(scale)?)?;
        rest = tail.trim_start();
    }
    Some(total)
}

/// A point in time given as a duration back from `now` or as a date; `None` when it is neither.
pub fn parse_point(text: &str, now: Timestamp) -> Option<Timestamp> {
    if let Some(ms) = parse_duration(text) {
        return Some(Timestamp(now.0.saturating_sub(ms)));
    }
    Timestamp::parse(text)
}

fn number(text: &str, width: usize) -> Option<i64> {
    if text.len() != width || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Days since the epoch, seconds into the day, milliseconds into the second.
fn split(ms: i64) -> (i64, i64, i64) {
    let secs = ms.div_euclid(1000);
    (
        secs.div_euclid(86_400),
        secs.rem_euclid(86_400),
        ms.rem_euclid(1000),
    )
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's civil-calendar algorithms: exact for every proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_round_trips() {
        for ms in [0, 1, 951_782_400_123, 1_795_252_471_999, -86_400_000] {
            let t = Timestamp(ms);
            assert_eq!(Timestamp::parse(&t.to_rfc3339()), Some(t), "{t}");
        }
        assert_eq!(Timestamp(0).to_rfc3339(), "1970-01-01T00:00:00.000Z");
        // 2000-02-29, a leap day in a century year.
        assert_eq!(
            Timestamp(951_782_400_123).to_rfc3339(),
            "2000-02-29T00:00:00.123Z"
        );
    }

    #[test]
    fn short_forms_parse() {
        let day = Timestamp::parse("2026-11-21").unwrap();
        assert_eq!(day.to_rfc3339(), "2026-11-21T00:00:00.000Z");
        let t = Timestamp::parse("2026-11-21T09:14").unwrap();
        assert_eq!(t.0 - day.0, (9 * 3600 + 14 * 60) * 1000);
        assert_eq!(t.to_short(), "2026-11-21 09:14");
        assert!(Timestamp::parse("2026-02-30").is_none());
        assert!(Timestamp::parse("yesterday").is_none());
        assert!(Timestamp::parse("2026-11-21T25:00").is_none());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s"), Some(90_000));
        assert_eq!(parse_duration("2w"), Some(14 * 86_400_000));
        assert_eq!(parse_duration("3 days"), Some(3 * 86_400_000));
        assert_eq!(parse_duration("7"), None);
        assert_eq!(parse_duration("5y"), None);
        // Sums, as `salve checkpoint drop --older-than` takes them.
        assert_eq!(parse_duration("30s"), Some(30_000));
        assert_eq!(parse_duration("7d"), Some(604_800_000));
        assert_eq!(parse_duration("1d12h"), Some(129_600_000));
        assert_eq!(parse_duration("2w"), Some(1_209_600_000));
        assert_eq!(parse_duration("12"), None);
        assert_eq!(parse_duration("d"), None);
        assert_eq!(parse_duration("3y"), None);
        assert_eq!(parse_duration(""), None);
        assert_eq!(parse_duration("1d 2"), None);
        let now = Timestamp(1_000_000_000);
        assert_eq!(
            parse_point("1h", now),
            Some(Timestamp(1_000_000_000 - 3_600_000))
        );
        assert_eq!(parse_point("1970-01-02", now), Some(Timestamp(86_400_000)));
    }
}
