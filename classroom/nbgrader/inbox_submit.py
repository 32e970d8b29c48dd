"""nbgrader's submit into the learner's own folder of the exchange: ``inbound/NAME/``.

Written into the learners' nbgrader configuration by ``scripts/make_assignments.py`` (so it needs
nothing but nbgrader: the class's environment does not hold the ``classroom`` package). Where the
class server made ``inbound/NAME/`` (root's ``inbound`` then lets no learner write it), a submission
goes there, on that learner's own file system (``classroom.cli.make_inboxes``): a learner who fills
theirs fills no one else's. Where there is no such folder (an exchange made without root), it is
nbgrader's own submit, into ``inbound/``.
"""

import os
import stat

from nbgrader.exchange.default.submit import ExchangeSubmit
from nbgrader.utils import check_mode, get_username


class InboxSubmit(ExchangeSubmit):
    """nbgrader's submit, whose destination is ``inbound/NAME/`` when that folder exists."""

    def init_dest(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        student = self.coursedir.student_id
        if student in ("", "*"):
            student = get_username()
        elif "*" in student or "+" in student or os.sep in student:
            self.fail(f"The student ID should contain no '*', '+' nor '{os.sep}'; got {student}")
        inbound = os.path.join(self.root, self.coursedir.course_id, "inbound")
        own = os.path.join(inbound, student)
        if os.path.lexists(own):
            found = os.lstat(own)
            if stat.S_ISDIR(found.st_mode) and found.st_uid == 0:  # root's folder below the mount
                self.fail(f"Your submission folder {own} was made after your server started, which does not see "
                          "it yet: stop your server and start it again (File > Hub Control Panel), then submit.")
            if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid():
                # made by another account in your name (a link, or a folder of theirs): they would read
                # what you submit there, or delete it
                self.fail(f"{own} is not a folder of yours (a link, or made by another account): nothing is "
                          "submitted there. Ask your teacher to remove it and make yours.")
        if not os.path.isdir(own) and os.path.isdir(inbound) and not check_mode(inbound, write=True, execute=True):
            self.fail(f"No submission folder of yours in {inbound} (the class server makes one per learner when "
                      "the course is made, or when `serve` runs again): ask your teacher.")
        if os.path.isdir(own):
            if not self.authenticator.has_access(student, self.coursedir.course_id):
                self.fail("You do not have access to this course.")
            if not check_mode(own, write=True, execute=True):
                self.fail(f"You don't have write permissions to the directory: {own}")
            self.inbound_path = own
            self.cache_path = os.path.join(self.cache, self.coursedir.course_id)
            parts = [student, self.coursedir.assignment_id, self.timestamp]
            if self.add_random_string:
                import base64

                parts.append(base64.urlsafe_b64encode(os.urandom(9)).decode("ascii"))
            self.assignment_filename = "+".join(parts)
            return
        super().init_dest()
